"""Pools of domain-specific semantic names shared by the GRIT scenarios.

Each pool is a tuple of distinct names (case-insensitively distinct) made of ASCII
letters, digits, spaces and hyphens, never a bare number, never containing the word
``and`` or punctuation that could end a sentence or split a list. Most pools are built
as a fixed product of two word lists (:func:`combine`), which gives well over 60 names;
:func:`extend` pads any pool deterministically with numbered variants when an instance
needs more names than the pool holds.

Example:
    >>> combine(("Oak", "Elm"), ("Street", "Square"))
    ('Oak Street', 'Elm Square', 'Oak Square', 'Elm Street')
    >>> extend(("Oak", "Elm"), 4)
    ('Oak', 'Elm', 'Oak 2', 'Elm 2')
    >>> min(len(p) for p in POOLS.values()) >= 60
    True
"""

from __future__ import annotations

from itertools import count

__all__ = ["POOLS", "combine", "extend"]


def combine(firsts: tuple[str, ...], seconds: tuple[str, ...]) -> tuple[str, ...]:
    """All ``first second`` names, interleaved so that a prefix of the pool is varied.

    The k-th round pairs ``firsts[i]`` with ``seconds[(i + k) % len(seconds)]``, so the
    first names drawn do not all share one second word.

    Example:
        >>> combine(("A", "B", "C"), ("x", "y"))
        ('A x', 'B y', 'C x', 'A y', 'B x', 'C y')
    """
    out: list[str] = []
    seen: set[str] = set()
    for k in range(len(seconds)):
        for i, first in enumerate(firsts):
            name = f"{first} {seconds[(i + k) % len(seconds)]}"
            if name.casefold() not in seen:
                seen.add(name.casefold())
                out.append(name)
    return tuple(out)


def extend(pool: tuple[str, ...], n: int) -> tuple[str, ...]:
    """Return at least ``n`` distinct names: the pool, then ``"<name> 2"``, ``"<name> 3"``...

    Example:
        >>> extend(("Vega",), 3)
        ('Vega', 'Vega 2', 'Vega 3')
    """
    out = list(pool)
    seen = {p.casefold() for p in pool}
    for k in count(2):
        if len(out) >= n:
            break
        for name in pool:
            cand = f"{name} {k}"
            if cand.casefold() not in seen:
                seen.add(cand.casefold())
                out.append(cand)
    return tuple(out)


_TREES = (
    "Oak", "Maple", "Cedar", "Birch", "Willow", "Elm", "Pine", "Aspen", "Chestnut",
    "Juniper", "Hawthorn", "Magnolia", "Laurel", "Poplar", "Alder", "Hazel", "Linden",
    "Sycamore", "Rowan", "Spruce",
)  # fmt: skip
_STREETS = ("Street", "Avenue", "Square", "Crossing", "Boulevard", "Lane", "Road", "Circle")
_TOWNS = (
    "Ashford", "Bramley", "Carlton", "Dunmore", "Easton", "Fairview", "Glenwood",
    "Hartley", "Ivybridge", "Kingsley", "Langford", "Milton", "Newbury", "Oakham",
    "Preston", "Redhill", "Stanton", "Thornbury", "Upton", "Westbrook", "Yardley",
    "Whitby", "Selby", "Rugby",
)  # fmt: skip
_FIRST = (
    "Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ingrid",
    "Jamal", "Keiko", "Liam", "Maya", "Nikolai", "Olivia", "Pablo", "Quinn", "Rosa",
    "Samir", "Tara", "Umar", "Vera", "Wen", "Yusuf", "Zoe",
)  # fmt: skip
_LAST = (
    "Moreno", "Okafor", "Lindqvist", "Tanaka", "Brennan", "Haddad", "Novak", "Castillo",
    "Fischer", "Mensah",
)  # fmt: skip
_STARS = (
    "Altair", "Vega", "Rigel", "Sirius", "Deneb", "Polaris", "Antares", "Capella",
    "Arcturus", "Procyon", "Aldebaran", "Spica", "Pollux", "Castor", "Regulus",
    "Bellatrix", "Mira", "Alcor", "Mizar", "Electra", "Maia", "Merope", "Atlas", "Hydra",
    "Lyra", "Orion", "Perseus", "Draco", "Cygnus", "Carina", "Fornax", "Pavo", "Tucana",
    "Phoenix", "Lupus", "Norma", "Vela", "Crux", "Cetus", "Columba", "Dorado", "Grus",
    "Indus", "Lacerta", "Musca", "Octans", "Pictor", "Pyxis", "Sagitta", "Scutum",
    "Sextans", "Volans", "Ankaa", "Achernar", "Canopus", "Hadar", "Acrux", "Mimosa",
    "Shaula", "Nunki", "Alnair", "Kochab", "Markab", "Sadr",
)  # fmt: skip
_NATO = (
    "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India",
    "Juliet", "Kilo", "Lima", "Mike", "November", "Oscar", "Papa", "Quebec", "Romeo",
    "Sierra", "Tango", "Uniform", "Victor", "Whiskey", "Yankee", "Zulu",
)  # fmt: skip
_TERRAIN = ("Ridge", "Field", "Valley", "Creek", "Bluff", "Flats", "Hollow", "Point")
_AREAS = (
    "Lobby", "Stairwell", "Corridor", "Atrium", "Plant Room", "Mail Room", "Archive",
    "Laboratory", "Kitchen", "Gym", "Boiler Room", "Server Room", "Loading Bay",
    "Reception", "Library", "Workshop",
)  # fmt: skip
_WINGS = ("North", "South", "East", "West", "Upper")
_SUBJECTS = (
    "Organic Chemistry", "Linear Algebra", "Microeconomics", "Medieval History",
    "Cell Biology", "Thermodynamics", "Statistics", "Macroeconomics", "Genetics",
    "Philosophy", "Discrete Mathematics", "Ecology", "Art History", "Astronomy",
    "Criminal Law", "Marketing", "Calculus", "Geology", "Psychology", "Anatomy",
    "Spanish", "Mandarin", "Accounting", "Sociology", "Fluid Mechanics",
    "Game Theory", "Poetry", "Climate Science", "Robotics", "Databases",
    "Neuroscience", "Optics",
)  # fmt: skip
_REGION_STEMS = (
    "Ashvale", "Brindle", "Corrin", "Dalmoor", "Elstree", "Fennick", "Galloway",
    "Harrow", "Islay", "Kestrel", "Lowmere", "Marlow", "Northam", "Orrin", "Pellam",
    "Quarry", "Rosslyn", "Sorrel", "Tamsin", "Umber",
)  # fmt: skip
_REGION_PREFIXES = ("North", "South", "East", "West")
_FANTASY_A = (
    "Xundral", "Knights", "Copper Clock", "Dragons", "Granite", "Trelvon", "Vorlen",
    "Zaphrel", "Skyline", "Draycon", "Lighthouse", "Yondel", "Brelix", "Cralden",
    "Umbra", "Mossgrave",
)  # fmt: skip
_FANTASY_B = ("View", "Market", "Gate", "Bay", "Heights", "Summit", "Arcade", "Crossing")
_VENUE_SPOTS = ("Front", "Rear", "Balcony", "Stage", "Bar", "Entrance", "Garden", "Foyer")
_VENUE_SIDES = ("Left", "Right", "Centre", "North", "South", "East", "West", "Corner")
_INSTRUMENTS = (
    "Centrifuge", "Spectrometer", "Incubator", "Microscope", "Laser Cutter", "Autoclave",
    "Sequencer", "Freezer", "Fume Hood", "Oscilloscope", "Press", "Lathe", "Kiln",
    "Scanner", "Plotter", "Chiller",
)  # fmt: skip
_UNITS = ("A", "B", "C", "D", "E")
_CAMPUS = (
    "Science Library", "Student Union", "Chapel", "Boathouse", "Observatory",
    "Art Studio", "Sports Hall", "Dining Hall", "Old Quad", "Music School",
    "Engineering Block", "Clock Tower", "Visitor Centre", "Greenhouse", "Law Faculty",
    "Medical School", "Theatre", "Bookshop", "Pool", "Chemistry Block",
    "Main Gate", "Lecture Theatre", "Language Centre", "Data Centre",
)  # fmt: skip
_CAMPUS_SIDE = ("", "North", "South")
_FACILITY = ("Pump Station", "Valve Point", "Junction", "Meter House")
_PORTS = (
    "Rotterdam", "Valencia", "Genoa", "Piraeus", "Antwerp", "Hamburg", "Gdansk", "Lisbon",
    "Marseille", "Naples", "Bilbao", "Dublin", "Oslo", "Tallinn", "Riga", "Malmo",
    "Aarhus", "Bremen", "Trieste", "Split", "Varna", "Constanta", "Izmir", "Haifa",
    "Tangier", "Cadiz", "Brest", "Cork", "Bergen", "Turku", "Kiel", "Leith", "Hull",
    "Dover", "Calais", "Le Havre", "Ostend", "Vigo", "Porto", "Palermo", "Bari", "Ancona",
    "Rijeka", "Koper", "Durres", "Kotor", "Patras", "Volos", "Limassol", "Alexandria",
    "Tunis", "Algiers", "Oran", "Ceuta", "Gibraltar", "Faro", "Sines", "Aveiro", "Gijon",
    "Santander", "Nantes", "Bordeaux",
)  # fmt: skip
_PEAKS = (
    "Eagle", "Raven", "Falcon", "Summit", "Glacier", "Pine", "Snowfield", "Cornice",
    "Powder", "Timber", "Frost", "Ridge",
)  # fmt: skip
_LIFT_PARTS = ("Lift", "Run", "Bowl", "Chalet", "Station", "Hut")
_PROTEINS = (
    "ALPHA", "BRCA", "CDK", "EGFR", "FOXO", "GATA", "HSP", "JAK", "KRAS", "MAPK", "MYC",
    "NOTCH", "PTEN", "RAF", "SMAD", "STAT", "TP", "WNT",
)  # fmt: skip
_PROTEIN_NUM = ("1", "2", "3", "4")
_VILLAGES = (
    "Abbots Leigh", "Bishops Green", "Coldharbour", "Dinton", "Elmstead", "Fernhill",
    "Goosey", "Hambledon", "Ickford", "Kelmscott", "Longcot", "Marsh Gibbon", "Nettlebed",
    "Oakley", "Pyrton", "Quainton", "Ramsden", "Shilton", "Tiddington", "Uffington",
    "Wantage", "Weston", "Yarnton", "Ardley",
)  # fmt: skip
_VILLAGE_TAGS = ("", "Green", "Cross")
_CAVES = ("Crystal", "Echo", "Bat", "Dripstone", "Lantern", "Whisper", "Flood", "Bone")
_CAVE_PARTS = ("Chamber", "Grotto", "Gallery", "Shaft", "Pool", "Hall", "Passage", "Sump")
_HALLS = (
    "Egyptian", "Roman", "Impressionist", "Renaissance", "Dinosaur", "Textile",
    "Maritime", "Armour", "Ceramics", "Photography", "Sculpture", "Coins",
)  # fmt: skip
_HALL_KIND = ("Hall", "Gallery", "Room", "Wing", "Annexe", "Court")
_RESTAURANTS = (
    "Golden Wok", "Casa Verde", "Blue Door Diner", "Saffron House", "Little Napoli",
    "Green Bowl", "Taco Loco", "Sushi Garden", "Burger Barn", "Olive Tree",
    "Spice Route", "Pho Corner", "Bagel Bros", "Curry Leaf", "Noodle Bar", "Crepe Cafe",
    "Smoke Pit", "Falafel King", "Dumpling Den", "Pasta Fresca",
)  # fmt: skip

_CHEMICALS = (
    "Acetone", "Ammonia", "Bleach", "Chlorine", "Ethanol", "Methanol", "Hydrogen Peroxide",
    "Nitric Acid", "Sulfuric Acid", "Hydrochloric Acid", "Sodium Hydroxide", "Potassium",
    "Sodium Metal", "Magnesium Powder", "Aluminium Powder", "Toluene", "Xylene", "Hexane",
    "Diethyl Ether", "Acetic Acid", "Formaldehyde", "Phenol", "Iodine", "Bromine",
    "Calcium Carbide", "Silver Nitrate", "Potassium Permanganate", "Ammonium Nitrate",
    "Sodium Azide", "Picric Acid", "Chloroform", "Benzene", "Lithium", "Phosphorus",
    "Sulfur", "Zinc Dust", "Copper Sulfate", "Glycerol", "Turpentine", "Perchloric Acid",
    "Nitrogen", "Argon", "Helium", "Oxygen", "Propane", "Butane", "Kerosene", "Naphthalene",
    "Urea", "Citric Acid", "Boric Acid", "Oxalic Acid", "Tannic Acid", "Sodium Chlorate",
    "Calcium Hypochlorite", "Cyclohexane", "Pentane", "Isopropanol", "Acetonitrile",
    "Pyridine", "Aniline", "Styrene", "Ozone", "Hydrazine",
)  # fmt: skip
_COMMITTEE_TOPICS = (
    "Finance", "Ethics", "Outreach", "Planning", "Safety", "Audit", "Hiring", "Library",
    "Events", "Sustainability", "Curriculum", "Research", "Welfare", "Grants",
    "Facilities", "Diversity", "Alumni", "Sports", "Arts", "Technology",
)  # fmt: skip
_FISH = (
    "Angelfish", "Barb", "Betta", "Cichlid", "Clownfish", "Discus", "Danio", "Gourami",
    "Guppy", "Molly", "Neon Tetra", "Oscar", "Platy", "Pleco", "Rasbora", "Swordtail",
    "Tang", "Wrasse", "Goby", "Blenny", "Damselfish", "Triggerfish", "Pufferfish",
    "Lionfish", "Killifish", "Loach", "Arowana", "Catfish", "Corydoras", "Koi",
)  # fmt: skip
_FISH_KIND = ("", "Red", "Blue")
_PAGE_TOPICS = (
    "Pricing", "Careers", "Support", "Security", "Returns", "Shipping", "Press",
    "Partners", "Investors", "Accessibility", "Privacy", "Warranty", "Downloads",
    "Tutorials", "Community", "Events", "Sustainability", "Team", "History", "Contact",
)  # fmt: skip

# Word lists used only by the OOD pools (identifiers unseen in train/test/large).
_OOD_FIRST = (
    "Amara", "Bastien", "Calla", "Desmond", "Esme", "Florian", "Gwen", "Hamish", "Isla",
    "Joaquin", "Kaia", "Lorcan", "Mirela", "Nils", "Odette", "Piers", "Rhea", "Soren",
    "Thea", "Ulrich", "Vivian", "Wilder", "Xenia", "Yannick", "Zara",
)  # fmt: skip
_OOD_LAST = (
    "Achterberg", "Balogun", "Corcoran", "Delacroix", "Eriksen", "Fontaine", "Gallagher",
    "Holloway", "Iwasaki", "Jovanovic",
)  # fmt: skip
_TRAIL_A = (
    "Fernwhistle", "Glimmerdale", "Hollowmere", "Bracken", "Thistle", "Starfall",
    "Larkspur", "Mistvale", "Emberly", "Wrenfield", "Quillon", "Rookhaven", "Sablewood",
    "Tarnwick", "Vesper", "Windholm",
)  # fmt: skip
_TRAIL_B = ("Overlook", "Falls", "Meadow", "Pass", "Spring", "Tarn", "Knoll", "Cairn")
_METRO = (
    "Harbourside", "Cathedral", "Riverside", "Parliament", "Mint Street", "Foundry",
    "Tannery", "Brewery", "Arsenal", "Exchange", "Customs House", "Ropewalk",
    "Gasworks", "Canal Basin", "Old Mill", "Glassworks", "Ironworks", "Silk Market",
    "Fish Market", "Printworks", "Cattle Market", "Dockyard", "Signal Box", "Tram Depot",
)  # fmt: skip
_WILD = (
    "Badger", "Otter", "Heron", "Lynx", "Bison", "Moose", "Elk", "Marten", "Puffin",
    "Osprey", "Beaver", "Ibex", "Stoat", "Curlew", "Plover", "Wildcat",
)  # fmt: skip
_WILD_PLACES = ("Meadow", "Marsh", "Gorge", "Thicket", "Clearing", "Spring", "Knoll", "Grove")
_DEPARTMENTS = (
    "Payroll", "Legal", "Sales", "Billing", "Helpdesk", "Procurement", "Logistics",
    "Compliance", "Engineering", "Design", "Warehouse", "Customer Care", "Treasury",
    "Quality", "Operations", "Analytics",
)  # fmt: skip
_NET_PARTS = ("Subnet", "Gateway", "Segment", "VLAN", "Core Switch")
_FESTIVAL_AREAS = (
    "Acoustic", "Dance", "Folk", "Jazz", "Comedy", "Family", "Cinema", "Poetry Slam",
    "Craft", "Street Food", "Silent Disco", "Circus",
)  # fmt: skip
_FESTIVAL_KIND = ("Tent", "Arena", "Camp", "Plaza", "Yard", "Dome")
_NATIONS = (
    "Valdoria", "Kestrany", "Morvania", "Istralis", "Qorvath", "Belmira", "Tarvonia",
    "Ulvenia", "Sardovia", "Elyndor", "Norvast", "Cavarra", "Drovenia", "Lothmar",
    "Pelagia", "Zentoria", "Arvenland", "Brisca", "Ostrava Minor", "Marrakand",
)  # fmt: skip
_NATION_KIND = ("Republic", "Federation", "Kingdom", "Union")

POOLS: dict[str, tuple[str, ...]] = {
    "city": combine(_TREES, _STREETS),
    "people": combine(_FIRST, _LAST),
    "stars": _STARS,
    "depots": combine(_TOWNS, ("Depot", "Hub", "Warehouse")),
    "rooms": combine(_WINGS, _AREAS),
    "zones": combine(_NATO, _TERRAIN),
    "courses": _SUBJECTS + tuple(f"Advanced {s}" for s in _SUBJECTS),
    "regions": combine(_REGION_PREFIXES, _REGION_STEMS),
    "stations": combine(_TOWNS, ("Junction", "Central", "Road")),
    "towers": combine(_TOWNS, ("Tower", "Mast", "Hill")),
    "fantasy": combine(_FANTASY_A, _FANTASY_B),
    "venue": combine(_VENUE_SPOTS, _VENUE_SIDES),
    "equipment": combine(_INSTRUMENTS, _UNITS),
    "campus": tuple(f"{side} {b}".strip() for side in _CAMPUS_SIDE for b in _CAMPUS),
    "pipeline": combine(_TREES, _FACILITY),
    "ports": _PORTS,
    "resort": combine(_PEAKS, _LIFT_PARTS),
    "proteins": tuple(f"{p}{k}" for k in _PROTEIN_NUM for p in _PROTEINS),
    "villages": tuple(f"{v} {t}".strip() for t in _VILLAGE_TAGS for v in _VILLAGES),
    "caves": combine(_CAVES, _CAVE_PARTS),
    "museum": combine(_HALLS, _HALL_KIND),
    "restaurants": _RESTAURANTS + combine(_TREES, ("Apartments", "Court")),
    "towns": _TOWNS + combine(_TOWNS, ("Green", "Heath", "Bridge", "Market")),
    "harbours": combine(_TOWNS, ("Harbour", "Quay", "Wharf")),
    "offices": combine(_TOWNS, ("Office", "Branch", "Showroom")),
    "wineries": combine(_REGION_STEMS, ("Estate", "Vineyard", "Cellars", "Winery")),
    "chemicals": _CHEMICALS,
    "committees": combine(_COMMITTEE_TOPICS, ("Committee", "Board", "Panel", "Council")),
    "fish": tuple(f"{k} {f}".strip() for k in _FISH_KIND for f in _FISH),
    "pages": combine(_PAGE_TOPICS, ("Page", "Guide", "Overview", "FAQ")),
    "centres": combine(_TOWNS, ("Fire Station", "Ambulance Base", "Rescue Post")),
    "substations": combine(_TOWNS, ("Substation", "Grid Point", "Switching Station")),
    # OOD-only pools (issue 11): the OOD scenarios that once shared an in-distribution
    # pool draw from these, whose names no in-distribution pool holds.
    "ood_people": combine(_OOD_FIRST, _OOD_LAST),
    "trails": combine(_TRAIL_A, _TRAIL_B),
    "metro": combine(_METRO, ("Metro", "Interchange", "Parkway")),
    "wilderness": combine(_WILD, _WILD_PLACES),
    "subnets": combine(_DEPARTMENTS, _NET_PARTS),
    "festival": combine(_FESTIVAL_AREAS, _FESTIVAL_KIND),
    "nations": combine(_NATIONS, _NATION_KIND),
}
"""Named pools; each scenario points at one of them (see ``Scenario.pool``). The pools of
the OOD scenarios share no name (ignoring case) with those of the in-distribution ones,
checked when the scenario registry is built, so the OOD split uses unseen identifiers."""

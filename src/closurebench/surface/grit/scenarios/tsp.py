"""Travelling-salesman scenarios: 6 from the paper's Table 8 and 4 held out for OOD.

The graph is complete, so every pairwise weight is stated; edge sentences are therefore
short. Units with ``{pl}`` agree in number ("1 minute", "4 minutes"); templates avoid
"a {wt} drive" with such units, which would read "a 4 minutes drive".

Example:
    >>> len(SCENARIOS), sum(s.split == "ood" for s in SCENARIOS)
    (10, 4)
"""

from __future__ import annotations

from closurebench.surface.grit.scenarios.base import Scenario

__all__ = ["SCENARIOS"]

_T = "tsp"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        id="tsp_parcel_delivery",
        task=_T,
        split="in_distribution",
        title="Parcel delivery tour",
        setting="a parcel delivery round",
        node="address",
        nodes="addresses",
        edge="drive",
        edges="drives",
        meaning="the driving distance between two delivery addresses",
        pool="city",
        weight="driving distance",
        unit="{w} km",
        links=(
            "The drive between {a} and {b} is {wt}.",
            "{a} and {b} are {wt} apart by road.",
            "From {a} to {b} is a {wt} drive.",
        ),
        ask_standard=(
            "What is the minimum total driving distance of a tour that visits every address "
            "exactly once and returns to its starting address?"
        ),
        ask=(
            "What is the shortest total distance for a round trip that drops a parcel at every "
            "address exactly once and ends back where it started?",
        ),
        opening=(
            "I drive a delivery van, and today I have one parcel for each address on my list.",
            "My van is loaded and I have to deliver to every address below before I head home.",
        ),
        closing=("The van is low on fuel, so the shorter the better.", "I want to get home early."),
        distractors=(
            "The van's radio only picks up one station.",
            "My supervisor is on holiday this week.",
            "It is supposed to snow in the afternoon.",
            "Taxis are unavailable today.",
            "One of the parcels is a very heavy box of books.",
        ),
    ),
    Scenario(
        id="tsp_sales_rep",
        task=_T,
        split="in_distribution",
        title="Sales representative tour",
        setting="a sales territory",
        node="client site",
        nodes="client sites",
        edge="drive",
        edges="drives",
        meaning="the driving time between two client sites",
        pool="offices",
        weight="driving time",
        unit="{w} minute{pl}",
        links=(
            "Driving between {a} and {b} takes {wt}.",
            "{a} is {wt} away from {b} by car.",
            "It takes {wt} to get from {a} to {b}.",
        ),
        ask_standard=(
            "What is the minimum total driving time of a tour that visits every client site "
            "exactly once and returns to its starting site?"
        ),
        ask=(
            "What is the least total driving time for a loop that visits every client site "
            "exactly once and brings me back to where I started?",
        ),
        opening=(
            "I'm a sales representative, and this week I have to visit every client site in "
            "my territory.",
        ),
        closing=("I'd like as much time as possible with each client.",),
        distractors=(
            "My company car was cleaned yesterday.",
            "Our new product brochure finally came back from the printer.",
            "I always keep a spare tie in the glovebox.",
            "The quarterly targets were announced this morning.",
            "My manager wants a report by Friday.",
        ),
    ),
    Scenario(
        id="tsp_food_delivery",
        task=_T,
        split="in_distribution",
        title="Food delivery tour",
        setting="a food delivery shift",
        node="stop",
        nodes="stops",
        edge="ride",
        edges="rides",
        meaning="the riding time between two stops",
        pool="restaurants",
        weight="riding time",
        unit="{w} minute{pl}",
        links=(
            "Riding between {a} and {b} takes {wt}.",
            "{a} and {b} are {wt} apart on my bike.",
            "The ride from {a} to {b} takes {wt}.",
        ),
        ask_standard=(
            "What is the minimum total riding time of a tour that visits every stop exactly "
            "once and returns to its starting stop?"
        ),
        ask=(
            "What is the shortest total riding time for a loop that passes every stop exactly "
            "once and returns to where I began?",
        ),
        opening=(
            "I deliver food by bike in the evenings, and tonight I have to call at every stop "
            "on my list once.",
        ),
        closing=("The food has to arrive warm.",),
        distractors=(
            "My bike chain squeaks a little.",
            "It is a clear night, thankfully.",
            "The app gave me a new badge last week.",
            "I forgot my gloves at home.",
            "Tips have been good this month.",
        ),
    ),
    Scenario(
        id="tsp_garbage_collection",
        task=_T,
        split="in_distribution",
        title="Garbage collection tour",
        setting="a garbage collection route",
        node="collection point",
        nodes="collection points",
        edge="drive",
        edges="drives",
        meaning="the driving time between two collection points",
        pool="city",
        weight="driving time",
        unit="{w} minute{pl}",
        links=(
            "The truck needs {wt} to get between {a} and {b}.",
            "Driving between {a} and {b} takes the truck {wt}.",
        ),
        ask_standard=(
            "What is the minimum total driving time of a tour that visits every collection "
            "point exactly once and returns to its starting point?"
        ),
        ask=(
            "What is the shortest total driving time for a route that empties every "
            "collection point once and returns to where it started?",
        ),
        opening=(
            "I plan routes for the city's garbage trucks, and one truck has to empty every "
            "collection point on this list before noon.",
        ),
        closing=("The crew would like to finish early.",),
        distractors=(
            "The truck was washed on Sunday.",
            "The recycling depot changed its opening hours.",
            "One of the crew is new this week.",
            "Residents have been complaining about seagulls.",
            "Our union meeting is on Wednesday.",
        ),
    ),
    Scenario(
        id="tsp_maintenance_inspection",
        task=_T,
        split="in_distribution",
        title="Maintenance inspection tour",
        setting="a maintenance inspection round",
        node="facility",
        nodes="facilities",
        edge="trip",
        edges="trips",
        meaning="the travel time between two facilities",
        pool="pipeline",
        weight="travel time",
        unit="{w} minute{pl}",
        links=(
            "Travelling between {a} and {b} takes {wt}.",
            "{a} is {wt} from {b}.",
        ),
        ask_standard=(
            "What is the minimum total travel time of a tour that visits every facility "
            "exactly once and returns to its starting facility?"
        ),
        ask=(
            "What is the minimum total travel time for an inspection round that visits every "
            "facility exactly once and comes back to the first one?",
        ),
        opening=(
            "I'm the inspection engineer for a water utility, and every facility on my list "
            "is due for its quarterly check.",
        ),
        closing=("I have to fit the whole round into one day.",),
        distractors=(
            "My safety boots need replacing.",
            "The utility bought new tablets for the inspectors.",
            "Last month's report was praised by the regulator.",
            "The canteen at head office has reopened.",
            "My colleague is covering the night shift.",
        ),
    ),
    Scenario(
        id="tsp_school_bus",
        task=_T,
        split="in_distribution",
        title="School bus route",
        setting="a school bus route",
        node="bus stop",
        nodes="bus stops",
        edge="drive",
        edges="drives",
        meaning="the driving time between two bus stops",
        pool="city",
        weight="driving time",
        unit="{w} minute{pl}",
        links=(
            "The bus takes {wt} between {a} and {b}.",
            "Driving between {a} and {b} takes {wt} either way.",
        ),
        ask_standard=(
            "What is the minimum total driving time of a tour that visits every bus stop "
            "exactly once and returns to its starting stop?"
        ),
        ask=(
            "What is the shortest total driving time for a route that calls at every bus stop "
            "exactly once and ends where it started?",
        ),
        opening=(
            "I drive the school bus for our district, and I'm redesigning the morning route.",
        ),
        closing=("The children should not sit on the bus longer than they must.",),
        distractors=(
            "The bus got new seat belts over the summer.",
            "The head teacher sends her thanks.",
            "Our district is opening another primary school.",
            "I listen to audiobooks on my break.",
            "The windscreen wipers were replaced last week.",
        ),
    ),
    Scenario(
        id="tsp_concert_tour",
        task=_T,
        split="ood",
        title="Band concert tour",
        setting="a concert tour",
        node="town",
        nodes="towns",
        edge="journey",
        edges="journeys",
        meaning="the road distance between two towns",
        pool="towns",
        weight="distance",
        unit="{w} km",
        links=(
            "{a} and {b} are {wt} apart.",
            "The tour bus covers {wt} between {a} and {b}.",
            "From {a} to {b} is {wt} on the road.",
        ),
        ask_standard=(
            "What is the minimum total distance of a tour that visits every town exactly once "
            "and returns to its starting town?"
        ),
        ask=(
            "What is the shortest total distance for a tour that plays every town exactly once "
            "and returns to the town we start from?",
        ),
        opening=(
            "My band is going on a small tour, and we want to play one show in every town on our "
            "list before heading home.",
        ),
        closing=("Our drummer gets carsick, so less road is better.",),
        distractors=(
            "Our new album comes out in the spring.",
            "The merch boxes barely fit in the trailer.",
            "Our bassist just learned to juggle.",
            "We still need a name for the tour.",
            "Tickets for the opening night sold out fast.",
        ),
    ),
    Scenario(
        id="tsp_mobile_library",
        task=_T,
        split="ood",
        title="Mobile library circuit",
        setting="a mobile library circuit",
        node="village",
        nodes="villages",
        edge="drive",
        edges="drives",
        meaning="the driving time between two villages",
        pool="villages",
        weight="driving time",
        unit="{w} minute{pl}",
        links=(
            "The library van needs {wt} to drive between {a} and {b}.",
            "{a} and {b} are {wt} apart by van.",
        ),
        ask_standard=(
            "What is the minimum total driving time of a tour that visits every village "
            "exactly once and returns to its starting village?"
        ),
        ask=(
            "What is the least total driving time for a circuit that stops in every village "
            "exactly once and returns to the first village?",
        ),
        opening=(
            "I run the county's mobile library, and the van visits every village below once a "
            "fortnight.",
        ),
        closing=("More time parked means more time lending books.",),
        distractors=(
            "Crime novels are by far our most borrowed books.",
            "The van's heater finally works again.",
            "A reader left us a box of homemade biscuits.",
            "We started a story hour for toddlers.",
            "The county may extend our funding.",
        ),
    ),
    Scenario(
        id="tsp_vineyard_tour",
        task=_T,
        split="ood",
        title="Vineyard tasting tour",
        setting="a wine-tasting tour",
        node="winery",
        nodes="wineries",
        edge="drive",
        edges="drives",
        meaning="the driving distance between two wineries",
        pool="wineries",
        weight="distance",
        unit="{w} km",
        links=(
            "{a} is {wt} from {b}.",
            "The road between {a} and {b} is {wt} long.",
        ),
        ask_standard=(
            "What is the minimum total distance of a tour that visits every winery exactly "
            "once and returns to its starting winery?"
        ),
        ask=(
            "What is the shortest total distance for a tour that stops at every winery exactly "
            "once and finishes where it began?",
        ),
        opening=(
            "I'm organising a wine-tasting day for my friends, and we have booked a driver to "
            "take us to every winery on the list.",
        ),
        closing=("The driver charges by the kilometre.",),
        distractors=(
            "Nobody in our group likes rose.",
            "We will have a picnic lunch.",
            "My cousin is flying in for the weekend.",
            "The harvest was early this year.",
            "We bought matching hats for the occasion.",
        ),
    ),
    Scenario(
        id="tsp_wildlife_cameras",
        task=_T,
        split="ood",
        title="Wildlife camera-trap check",
        setting="a wildlife camera survey",
        node="camera trap",
        nodes="camera traps",
        edge="walk",
        edges="walks",
        meaning="the walking time between two camera traps",
        pool="wilderness",
        weight="walking time",
        unit="{w} minute{pl}",
        links=(
            "Walking between {a} and {b} takes {wt}.",
            "{a} is {wt} on foot from {b}.",
        ),
        ask_standard=(
            "What is the minimum total walking time of a tour that visits every camera trap "
            "exactly once and returns to its starting trap?"
        ),
        ask=(
            "What is the shortest total walking time for a loop that checks every camera trap "
            "exactly once and returns to the first one?",
        ),
        opening=(
            "I'm a field ecologist, and today I have to change the memory cards in every "
            "camera trap on our survey.",
        ),
        closing=("It gets dark early at this time of year.",),
        distractors=(
            "Last week one camera caught a lynx.",
            "My waterproof jacket is not so waterproof.",
            "The grant report is due next month.",
            "We spotted fresh boar tracks near the stream.",
            "I packed far too many sandwiches.",
        ),
    ),
)

"""Breadth-first traversal scenarios: 4 from the paper's Table 8 and 4 held out for OOD.

The question names the start; the renderer adds the neighbour-order rule (numeric,
alphabetical or listed order, depending on the naming scheme), using ``adjacent`` to say
which nodes are neighbours.

Example:
    >>> len(SCENARIOS), sum(s.split == "ood" for s in SCENARIOS)
    (8, 4)
"""

from __future__ import annotations

from closurebench.surface.grit.scenarios.base import QueryWording, Scenario

__all__ = ["QUERY", "SCENARIOS"]

_T = "bfs"
_IN = "in_distribution"

#: The neighbour-order rule, standard and realistic; ``{order}`` is the naming scheme's
#: tie-break phrase (``frames.BFS_ORDER``).
QUERY = QueryWording(
    order_rule=(
        "When {a_node} is processed, each not-yet-visited {node} {adjacent} joins the end of "
        "the queue, {order}.",
        "Whenever I am done with {a_node}, each not-yet-reached {node} {adjacent} goes to the "
        "end of my to-do list, {order}.",
    )
)

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        id="bfs_disaster_inspection",
        task=_T,
        query=QUERY,
        split=_IN,
        title="Post-disaster inspection sweep",
        setting="a town after an earthquake",
        node="site",
        nodes="sites",
        edge="road",
        edges="roads",
        meaning="a passable road between two sites",
        adjacent="joined to it by a passable road",
        pool="city",
        links=(
            "A passable road connects {a} and {b}.",
            "The road between {a} and {b} is still open.",
            "{a} and {b} are linked by a road that survived the quake.",
        ),
        ask_standard=(
            "Starting from {s}, in what order does a breadth-first search visit the sites?"
        ),
        ask=("If I sweep outward from {s} breadth-first, in what order will I inspect the sites?",),
        opening=(
            "After last night's earthquake, I'm leading the team that checks every site for "
            "damage, starting from our base at {s}.",
        ),
        closing=("We will work through the sites in waves, nearest first.",),
        distractors=(
            "Taxis are unavailable today.",
            "The mobile network is patchy in the hills.",
            "Volunteers brought us hot soup this morning.",
            "Our generator has enough fuel for two days.",
            "A reporter wants an interview later.",
        ),
    ),
    Scenario(
        id="bfs_tourist_exploration",
        task=_T,
        query=QUERY,
        split=_IN,
        title="Tourist exploration route",
        setting="an old town",
        node="attraction",
        nodes="attractions",
        edge="street",
        edges="streets",
        meaning="a street connecting two attractions",
        adjacent="one street away from it",
        pool="fantasy",
        links=(
            "A street connects {a} and {b}.",
            "{a} is one street away from {b}.",
            "You can walk straight from {a} to {b}.",
        ),
        ask_standard=(
            "Starting from {s}, in what order does a breadth-first search visit the attractions?"
        ),
        ask=(
            "If I explore breadth-first starting from {s}, in what order will I see the "
            "attractions?",
        ),
        opening=(
            "I'm spending a long weekend in a town I have never visited, and my hotel is right "
            "next to {s}.",
        ),
        closing=("I like to explore in widening circles around my hotel.",),
        distractors=(
            "The hotel breakfast is excellent.",
            "I forgot to pack an umbrella.",
            "My guidebook is a few years out of date.",
            "The locals are very friendly.",
            "I bought a postcard for my grandmother.",
        ),
    ),
    Scenario(
        id="bfs_uav_scanning",
        task=_T,
        query=QUERY,
        split=_IN,
        title="UAV area scanning",
        setting="a survey area",
        node="zone",
        nodes="zones",
        edge="flight corridor",
        edges="flight corridors",
        meaning="a flight corridor between two zones",
        adjacent="linked to it by a flight corridor",
        pool="zones",
        links=(
            "A flight corridor links {a} and {b}.",
            "The drone may fly directly between {a} and {b}.",
        ),
        ask_standard=(
            "Starting from {s}, in what order does a breadth-first search visit the zones?"
        ),
        ask=(
            "If the drone scans breadth-first starting from {s}, in what order will it scan the "
            "zones?",
        ),
        opening=("I'm programming a survey drone that is launched from {s}.",),
        closing=("The drone scans each zone the first time it reaches it.",),
        distractors=(
            "The drone's camera was recalibrated yesterday.",
            "Wind speeds are low this afternoon.",
            "Our pilot licence was renewed last month.",
            "The landowner asked for a copy of the photos.",
            "Spare propellers are in the blue case.",
        ),
    ),
    Scenario(
        id="bfs_building_inspection",
        task=_T,
        query=QUERY,
        split=_IN,
        title="Building safety inspection",
        setting="an office building",
        node="room",
        nodes="rooms",
        edge="door",
        edges="doors",
        meaning="a door between two rooms",
        adjacent="connected to it by a door",
        pool="rooms",
        links=(
            "A door connects {a} and {b}.",
            "{a} opens directly into {b}.",
            "There is a door between {a} and {b}.",
        ),
        ask_standard=(
            "Starting from {s}, in what order does a breadth-first search visit the rooms?"
        ),
        ask=(
            "If I inspect the rooms breadth-first starting from {s}, in what order will I "
            "inspect them?",
        ),
        opening=(
            "I'm the fire safety inspector for an office building, and I always start my "
            "inspection at {s}.",
        ),
        closing=("I check each room the first time I reach it.",),
        distractors=(
            "The lift has been out of order all week.",
            "The tenants are mostly architects.",
            "My clipboard pen ran out of ink.",
            "The building was finished last spring.",
            "The caretaker offered me a cup of tea.",
        ),
    ),
    Scenario(
        id="bfs_contact_tracing",
        task=_T,
        query=QUERY,
        split="ood",
        title="Contact tracing",
        setting="a contact-tracing case",
        node="person",
        nodes="people",
        edge="close contact",
        edges="close contacts",
        meaning="a close contact between two people",
        adjacent="who had close contact with that person",
        pool="ood_people",
        links=(
            "{a} and {b} were in close contact.",
            "{a} spent the afternoon with {b}.",
            "{a} shared an office with {b}.",
        ),
        ask_standard=(
            "Starting from {s}, in what order does a breadth-first search reach the people?"
        ),
        ask=(
            "If I trace contacts breadth-first starting from {s}, in what order will I call the "
            "people?",
        ),
        opening=(
            "I work as a contact tracer, and today's case starts with {s}, who tested positive.",
        ),
        closing=("I call each person the first time their name comes up.",),
        distractors=(
            "The clinic changed its opening hours.",
            "My headset is giving me trouble today.",
            "Most people are happy to help.",
            "The weather has been unusually warm.",
            "My supervisor checks my notes every evening.",
        ),
    ),
    Scenario(
        id="bfs_web_crawl",
        task=_T,
        query=QUERY,
        split="ood",
        title="Website crawl",
        setting="a company website",
        node="page",
        nodes="pages",
        edge="mutual link",
        edges="mutual links",
        meaning="a pair of pages that link to each other",
        adjacent="that links to it",
        pool="pages",
        links=(
            "{a} and {b} link to each other.",
            "There are links in both directions between {a} and {b}.",
        ),
        ask_standard="Starting from {s}, in what order does a breadth-first crawl visit the pages?",
        ask=(
            "If my crawler works breadth-first starting from {s}, in what order will it fetch "
            "the pages?",
        ),
        opening=(
            "I'm writing a small crawler to check our company website, and it starts at {s}.",
        ),
        closing=("The crawler fetches each page only once.",),
        distractors=(
            "The website was redesigned last year.",
            "Our marketing team loves pastel colours.",
            "The server is hosted abroad.",
            "I am writing the crawler in my spare time.",
            "The cookie banner is very annoying.",
        ),
    ),
    Scenario(
        id="bfs_cave_exploration",
        task=_T,
        query=QUERY,
        split="ood",
        title="Cave survey",
        setting="a cave system",
        node="chamber",
        nodes="chambers",
        edge="passage",
        edges="passages",
        meaning="a passage between two chambers",
        adjacent="connected to it by a passage",
        pool="caves",
        links=(
            "A passage connects {a} and {b}.",
            "You can crawl from {a} into {b}.",
            "{a} and {b} are joined by a narrow passage.",
        ),
        ask_standard=(
            "Starting from {s}, in what order does a breadth-first search visit the chambers?"
        ),
        ask=(
            "If we survey breadth-first starting from {s}, in what order will we map the chambers?",
        ),
        opening=("Our caving club is mapping a cave system, and we always enter at {s}.",),
        closing=("We map each chamber the first time we get to it.",),
        distractors=(
            "My helmet lamp needs new batteries.",
            "We spotted a colony of bats near the entrance.",
            "It is always cold down there.",
            "Our club has a new treasurer.",
            "The farmer lets us park in his yard.",
        ),
    ),
    Scenario(
        id="bfs_flood_warning",
        task=_T,
        query=QUERY,
        split="ood",
        title="Flood warning cascade",
        setting="a valley flood-warning network",
        node="village",
        nodes="villages",
        edge="radio link",
        edges="radio links",
        meaning="a radio link between two villages",
        adjacent="linked to it by radio",
        pool="villages",
        links=(
            "{a} and {b} have a radio link.",
            "The wardens of {a} and {b} can radio each other.",
        ),
        ask_standard=(
            "Starting from {s}, in what order does a breadth-first search visit the villages?"
        ),
        ask=(
            "If the warning spreads breadth-first starting from {s}, in what order are the "
            "villages warned?",
        ),
        opening=("I coordinate flood warnings in our valley, and warnings always start at {s}.",),
        closing=("Each village passes the warning on as soon as it gets it.",),
        distractors=(
            "The river has been rising since Monday.",
            "Our radios were donated by a local business.",
            "The village hall has sandbags ready.",
            "Most farmers have moved their sheep uphill.",
            "The school may close early tomorrow.",
        ),
    ),
)

"""Centrality scenarios: 4 from the paper's Table 8 and 4 held out for OOD.

Questions contain ``{kind} centrality``; the renderer adds a one-sentence definition of
the kind, so the measure is stated in the text.

Example:
    >>> len(SCENARIOS), sum(s.split == "ood" for s in SCENARIOS)
    (8, 4)
"""

from __future__ import annotations

from closurebench.surface.grit.scenarios.base import QueryWording, Scenario

__all__ = ["QUERY", "SCENARIOS"]

_T = "centrality"
_IN = "in_distribution"

#: The kind of centrality asked reads ``{kind}``; the sentence after the ask defines it.
QUERY = QueryWording(
    slots=(("centrality", "kind"),),
    definitions=(
        ("degree", "Degree centrality counts how many {edges} {a_node} has."),
        (
            "closeness",
            "Closeness centrality is higher the fewer {edges} {a_node} needs, on average, to "
            "reach every other {node} by a shortest route.",
        ),
        (
            "betweenness",
            "Betweenness centrality measures how many shortest routes between other pairs of "
            "{nodes} pass through {a_node}.",
        ),
    ),
)

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        id="cen_city_traffic_hubs",
        task=_T,
        query=QUERY,
        split=_IN,
        title="City traffic hubs",
        setting="a city road network",
        node="intersection",
        nodes="intersections",
        edge="road",
        edges="roads",
        meaning="a road between two intersections",
        pool="city",
        links=(
            "A road connects {a} and {b}.",
            "{a} and {b} are joined by a direct road.",
            "You can drive straight from {a} to {b}.",
        ),
        ask_standard="Which intersection has the highest {kind} centrality?",
        ask=(
            "Which intersection is the most important hub by {kind} centrality?",
            "Which intersection scores highest on {kind} centrality?",
        ),
        opening=(
            "I work for the city's transport department, and we want to find the most important "
            "intersection in our road network.",
        ),
        closing=("That is where we will put the new traffic control centre.",),
        distractors=(
            "Taxis are unavailable today.",
            "The city is planting more trees this year.",
            "Our department just moved offices.",
            "Most commuters here drive alone.",
            "A new bike-sharing scheme launches soon.",
        ),
    ),
    Scenario(
        id="cen_emergency_response",
        task=_T,
        query=QUERY,
        split=_IN,
        title="Emergency response centres",
        setting="a county emergency network",
        node="response centre",
        nodes="response centres",
        edge="direct route",
        edges="direct routes",
        meaning="a direct route between two response centres",
        pool="centres",
        links=(
            "There is a direct route between {a} and {b}.",
            "Crews can drive directly between {a} and {b}.",
        ),
        ask_standard="Which response centre has the highest {kind} centrality?",
        ask=("Which response centre ranks first by {kind} centrality?",),
        opening=(
            "I plan emergency cover for our county, and we want to base the new command unit at "
            "the most central response centre.",
        ),
        closing=("We want to get this decision right.",),
        distractors=(
            "The fire crews held a charity car wash.",
            "Our radios were upgraded last winter.",
            "Ambulance response times improved this year.",
            "The county is recruiting more volunteers.",
            "I'm on call this weekend.",
        ),
    ),
    Scenario(
        id="cen_social_key_persons",
        task=_T,
        query=QUERY,
        split=_IN,
        title="Social network key persons",
        setting="a social network",
        node="person",
        nodes="people",
        edge="friendship",
        edges="friendships",
        meaning="a friendship between two people",
        pool="people",
        links=(
            "{a} and {b} are friends.",
            "{a} is friends with {b}.",
            "{a} and {b} have known each other since school.",
        ),
        ask_standard="Which person has the highest {kind} centrality?",
        ask=("Who is the key person by {kind} centrality?",),
        opening=(
            "I'm studying the friendships in my hiking club, and I want to find out who holds "
            "the group together.",
        ),
        closing=("I want to invite that person to help organise our next trip.",),
        distractors=(
            "Our club has a very old mascot.",
            "We hike every second Sunday.",
            "Membership fees went up last year.",
            "The club's website needs a redesign.",
            "Someone always forgets their lunch.",
        ),
    ),
    Scenario(
        id="cen_information_relay",
        task=_T,
        query=QUERY,
        split=_IN,
        title="Information relay stations",
        setting="a relay network",
        node="relay station",
        nodes="relay stations",
        edge="link",
        edges="links",
        meaning="a communication link between two relay stations",
        pool="towers",
        links=(
            "{a} and {b} can relay messages to each other.",
            "There is a communication link between {a} and {b}.",
        ),
        ask_standard="Which relay station has the highest {kind} centrality?",
        ask=("Which relay station is the most critical by {kind} centrality?",),
        opening=(
            "I maintain a network of relay stations, and I need to decide which one gets a "
            "backup power supply first.",
        ),
        closing=("The most central station gets the upgrade.",),
        distractors=(
            "The last storm damaged a few antennas.",
            "Our maintenance van is in the garage.",
            "The supplier raised its prices.",
            "I visited two stations on Monday.",
            "The new solar panels look very shiny.",
        ),
    ),
    Scenario(
        id="cen_airport_hubs",
        task=_T,
        query=QUERY,
        split="ood",
        title="Airline hub selection",
        setting="a regional airline",
        node="airport",
        nodes="airports",
        edge="direct flight",
        edges="direct flights",
        meaning="a direct flight between two airports",
        pool="ports",
        links=(
            "There are direct flights between {a} and {b}.",
            "The airline flies nonstop between {a} and {b}.",
        ),
        ask_standard="Which airport has the highest {kind} centrality?",
        ask=("Which airport would be the best hub by {kind} centrality?",),
        opening=("Our small airline is choosing a hub airport for next season.",),
        closing=("The board meets on Friday to decide.",),
        distractors=(
            "Our cabin crew got new uniforms.",
            "Fuel costs dropped this quarter.",
            "The in-flight magazine won an award.",
            "We are leasing another aircraft.",
            "Passengers love our free biscuits.",
        ),
    ),
    Scenario(
        id="cen_power_substations",
        task=_T,
        query=QUERY,
        split="ood",
        title="Power grid substations",
        setting="a regional power grid",
        node="substation",
        nodes="substations",
        edge="transmission line",
        edges="transmission lines",
        meaning="a transmission line between two substations",
        pool="substations",
        links=(
            "A transmission line connects {a} and {b}.",
            "{a} and {b} are tied together by a high-voltage line.",
        ),
        ask_standard="Which substation has the highest {kind} centrality?",
        ask=("Which substation is the most central by {kind} centrality?",),
        opening=("I'm a grid planner, and we need to pick which substation to harden first.",),
        closing=("A failure there would hurt the most.",),
        distractors=(
            "Demand peaks on cold winter evenings.",
            "Our control room has a new video wall.",
            "A fox got into a substation last spring.",
            "The regulator approved our budget.",
            "We are hiring more line workers.",
        ),
    ),
    Scenario(
        id="cen_protein_hubs",
        task=_T,
        query=QUERY,
        split="ood",
        title="Protein interaction hubs",
        setting="a protein interaction network",
        node="protein",
        nodes="proteins",
        edge="interaction",
        edges="interactions",
        meaning="a physical interaction between two proteins",
        pool="proteins",
        links=(
            "{a} binds to {b}.",
            "An interaction between {a} and {b} was confirmed in the lab.",
        ),
        ask_standard="Which protein has the highest {kind} centrality?",
        ask=("Which protein is the hub of the network by {kind} centrality?",),
        opening=("I'm a biologist studying a small protein interaction network.",),
        closing=("The hub is our best candidate for the next experiment.",),
        distractors=(
            "Our lab's freezer alarm went off last night.",
            "The conference deadline is approaching.",
            "A new microscope is being installed.",
            "My supervisor is on sabbatical.",
            "The cell cultures look healthy.",
        ),
    ),
    Scenario(
        id="cen_trade_partners",
        task=_T,
        query=QUERY,
        split="ood",
        title="Trade network partners",
        setting="a trade network",
        node="country",
        nodes="countries",
        edge="trade agreement",
        edges="trade agreements",
        meaning="a trade agreement between two countries",
        pool="nations",
        links=(
            "{a} and {b} have a trade agreement.",
            "{a} trades freely with {b}.",
        ),
        ask_standard="Which country has the highest {kind} centrality?",
        ask=("Which country is the most central trader by {kind} centrality?",),
        opening=(
            "I'm writing a report on trade agreements between the countries in a fictional world.",
        ),
        closing=("My editor wants the answer in the first paragraph.",),
        distractors=(
            "The report is due at the end of the month.",
            "My editor prefers short sentences.",
            "The world map in my office is upside down.",
            "I drink far too much coffee.",
            "The printer ran out of toner again.",
        ),
    ),
)

"""Shortest-path scenarios: 4 from the paper's Table 8 and 4 held out for the OOD split.

Every scenario states edges four ways (undirected or one-way, weighted or not), because a
shortest-path instance may be any of those. One-way sentences describe the route itself
as one-way ("the one-way link from A to B"), never "not back", because a separate link in
the other direction may exist.

Example:
    >>> [s.id for s in SCENARIOS if s.split == "ood"]
    ['sp_hiking_trails', 'sp_coastal_freight', 'sp_metro_commute', 'sp_ski_resort']
"""

from __future__ import annotations

from closurebench.surface.grit.scenarios.base import Scenario

__all__ = ["SCENARIOS"]

_T = "shortest_path"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        id="sp_datacenter_latency",
        task=_T,
        split="in_distribution",
        title="Data-centre latency routing",
        setting="a data-centre network",
        node="server",
        nodes="servers",
        edge="link",
        edges="links",
        meaning="a direct network link between two servers",
        pool="stars",
        weight="latency",
        unit="{w} ms",
        links=(
            "The link between {a} and {b} has a latency of {wt}.",
            "{a} and {b} are directly connected, with {wt} of latency.",
            "A packet sent between {a} and {b} takes {wt}.",
        ),
        links_plain=(
            "{a} and {b} are directly connected.",
            "There is a direct link between {a} and {b}.",
        ),
        arcs=(
            "There is a one-way link from {a} to {b} with a latency of {wt}.",
            "The one-way link from {a} to {b} takes {wt}.",
        ),
        arcs_plain=(
            "There is a one-way link from {a} to {b}.",
            "Traffic can flow from {a} to {b} over a one-way link.",
        ),
        ask_standard="What is the minimum total latency of a route from {s} to {t}?",
        ask_standard_plain="What is the minimum number of links on a route from {s} to {t}?",
        ask=(
            "What is the lowest total latency a request from {s} can achieve on its way to {t}?",
            "How low can the end-to-end latency from {s} to {t} be?",
        ),
        ask_plain=(
            "What is the smallest number of links a request has to cross to get from {s} to {t}?",
        ),
        opening=(
            "I look after the network in our data centre, and I need to get a request from "
            "{s} to {t} as quickly as possible.",
            "A customer is complaining about slow responses, so I am working out the best "
            "way to send a request from {s} to {t}.",
        ),
        closing=(
            "I would rather not guess on this one.",
            "Every hop adds up, so I want this right.",
        ),
        distractors=(
            "The cooling system was serviced this morning.",
            "Our backup generator passed its monthly test.",
            "Two of my colleagues are out sick this week.",
            "The coffee machine on our floor is broken again.",
            "We are migrating the billing database next quarter.",
        ),
    ),
    Scenario(
        id="sp_logistics_cost",
        task=_T,
        split="in_distribution",
        title="Logistics cost routes",
        setting="a logistics company's road network",
        node="depot",
        nodes="depots",
        edge="route",
        edges="routes",
        meaning="a direct truck route between two depots",
        pool="depots",
        weight="shipping cost",
        unit="${w}",
        links=(
            "Shipping a pallet between {a} and {b} costs {wt}.",
            "The direct route between {a} and {b} costs {wt} per pallet.",
            "Moving a pallet from {a} to {b}, or back, costs {wt}.",
        ),
        links_plain=(
            "Our trucks run directly between {a} and {b}.",
            "There is a direct route between {a} and {b}.",
        ),
        arcs=(
            "The one-way route from {a} to {b} costs {wt} per pallet.",
            "A truck can take the one-way route from {a} to {b} for {wt} per pallet.",
        ),
        arcs_plain=(
            "There is a one-way route from {a} to {b}.",
            "A truck can take the one-way route from {a} to {b}.",
        ),
        ask_standard="What is the minimum total shipping cost of a route from {s} to {t}?",
        ask_standard_plain="What is the minimum number of routes on a trip from {s} to {t}?",
        ask=(
            "What is the cheapest total cost to ship a pallet from {s} to {t}?",
            "How little can it cost, in total, to get one pallet from {s} to {t}?",
        ),
        ask_plain=(
            "What is the smallest number of routes a pallet has to travel along to get from "
            "{s} to {t}?",
        ),
        opening=(
            "I manage dispatch for a regional logistics company, and a pallet has to get "
            "from {s} to {t} this week.",
            "A client has asked us to move a pallet of machine parts from {s} to {t}.",
        ),
        closing=("Margins are thin this quarter, so it matters.",),
        distractors=(
            "Taxis are unavailable today.",
            "The new forklifts arrived on Monday.",
            "Fuel prices went up slightly last week.",
            "The warehouse team is throwing a party on Friday.",
            "Our drivers get a bonus this month.",
        ),
    ),
    Scenario(
        id="sp_robot_energy",
        task=_T,
        split="in_distribution",
        title="Robot energy-efficient paths",
        setting="a factory floor map",
        node="waypoint",
        nodes="waypoints",
        edge="aisle",
        edges="aisles",
        meaning="an aisle connecting two waypoints",
        pool="rooms",
        weight="energy cost",
        unit="{w} Wh",
        links=(
            "Driving along the aisle between {a} and {b} uses {wt} of battery.",
            "The aisle between {a} and {b} costs the robot {wt} in either direction.",
            "Getting between {a} and {b} takes {wt} of energy.",
        ),
        links_plain=(
            "An aisle connects {a} and {b}.",
            "The robot can drive directly between {a} and {b}.",
        ),
        arcs=(
            "The aisle from {a} to {b} is one-way for robots and uses {wt}.",
            "The robot may drive one way from {a} to {b}, using {wt}.",
        ),
        arcs_plain=(
            "The aisle from {a} to {b} is one-way for robots.",
            "The robot may drive one way from {a} to {b}.",
        ),
        ask_standard="What is the minimum total energy cost of a route from {s} to {t}?",
        ask_standard_plain="What is the minimum number of aisles on a route from {s} to {t}?",
        ask=("What is the least total energy the robot needs to get from {s} to {t}?",),
        ask_plain=(
            "What is the smallest number of aisles the robot must drive along to get from "
            "{s} to {t}?",
        ),
        opening=(
            "I program the delivery robot on our factory floor, and it has to carry a part "
            "from {s} to {t} on a nearly empty battery.",
            "Our warehouse robot is waiting at {s} with a part that is needed at {t}.",
        ),
        closing=("I really do not want it to stall halfway.",),
        distractors=(
            "The robot was repainted orange last month.",
            "The night shift starts an hour late today.",
            "Someone left a ladder in the break room.",
            "Our robot vendor released a firmware update.",
            "The floor was waxed yesterday evening.",
        ),
    ),
    Scenario(
        id="sp_network_routing",
        task=_T,
        split="in_distribution",
        title="Network routing paths",
        setting="a corporate wide-area network",
        node="router",
        nodes="routers",
        edge="connection",
        edges="connections",
        meaning="a connection between two routers",
        pool="offices",
        weight="routing cost",
        unit="{w}",
        links=(
            "The connection between {a} and {b} has a routing cost of {wt}.",
            "{a} and {b} are linked with a cost of {wt}.",
            "Between {a} and {b} the routing cost is {wt}.",
        ),
        links_plain=(
            "{a} and {b} are directly connected.",
            "There is a connection between {a} and {b}.",
        ),
        arcs=(
            "There is a one-way connection from {a} to {b} with cost {wt}.",
            "The connection from {a} to {b} is one-way and costs {wt}.",
        ),
        arcs_plain=(
            "There is a one-way connection from {a} to {b}.",
            "The connection from {a} to {b} is one-way.",
        ),
        ask_standard="What is the minimum total routing cost of a path from {s} to {t}?",
        ask_standard_plain="What is the minimum number of connections on a path from {s} to {t}?",
        ask=("What is the lowest total routing cost for traffic from {s} to {t}?",),
        ask_plain=(
            "What is the smallest number of connections traffic must cross from {s} to {t}?",
        ),
        opening=(
            "I'm the network engineer for a company with offices all over the country, and "
            "I need to check how traffic from {s} should reach {t}.",
        ),
        closing=("Our routers pick the cheapest path, and I want to know what it costs.",),
        distractors=(
            "The office in the capital is getting new furniture.",
            "Our firewall licences renew in the autumn.",
            "The helpdesk phone line was down for an hour yesterday.",
            "Most of the routers were bought from the same vendor.",
            "I have a training course on Thursday.",
        ),
    ),
    Scenario(
        id="sp_hiking_trails",
        task=_T,
        split="ood",
        title="Hiking to the ranger station",
        setting="a national park trail system",
        node="campsite",
        nodes="campsites",
        edge="trail",
        edges="trails",
        meaning="a trail between two campsites",
        pool="trails",
        weight="walking distance",
        unit="{w} km",
        links=(
            "The trail between {a} and {b} is {wt} long.",
            "It is a {wt} hike between {a} and {b}.",
            "{a} and {b} are joined by a {wt} trail.",
        ),
        links_plain=(
            "A trail runs between {a} and {b}.",
            "You can hike directly between {a} and {b}.",
        ),
        arcs=(
            "A one-way trail leads from {a} to {b} and is {wt} long.",
            "The trail from {a} to {b} is {wt} and may only be hiked in that direction.",
        ),
        arcs_plain=(
            "A one-way trail leads from {a} to {b}.",
            "The trail from {a} to {b} may only be hiked in that direction.",
        ),
        ask_standard="What is the minimum total walking distance of a route from {s} to {t}?",
        ask_standard_plain="What is the minimum number of trails on a route from {s} to {t}?",
        ask=("What is the shortest total distance we can hike from {s} to {t}?",),
        ask_plain=(
            "What is the smallest number of trails we need to hike to get from {s} to {t}?",
        ),
        opening=(
            "My younger brother sprained his ankle at {s}, and the ranger station is at {t}.",
            "We are camping at {s} and want to reach the visitor centre at {t} before dark.",
        ),
        closing=("Some of us are limping, so every kilometre counts.",),
        distractors=(
            "Taxis are unavailable today.",
            "We saw a family of deer this morning.",
            "My phone battery is almost dead.",
            "The forecast says it might rain later.",
            "Our water bottles are still half full.",
        ),
    ),
    Scenario(
        id="sp_coastal_freight",
        task=_T,
        split="ood",
        title="Coastal freight shipping",
        setting="a coastal shipping network",
        node="harbour",
        nodes="harbours",
        edge="shipping lane",
        edges="shipping lanes",
        meaning="a shipping lane between two harbours",
        pool="harbours",
        weight="sailing time",
        unit="{w} hour{pl}",
        links=(
            "A cargo ship takes {wt} between {a} and {b}, in either direction.",
            "Sailing between {a} and {b} takes {wt}.",
        ),
        links_plain=(
            "Cargo ships sail directly between {a} and {b}.",
            "There is a shipping lane between {a} and {b}.",
        ),
        arcs=(
            "The one-way shipping lane from {a} to {b} takes {wt}.",
            "Because of the currents, ships use the lane from {a} to {b} one way only, "
            "taking {wt}.",
        ),
        arcs_plain=(
            "There is a one-way shipping lane from {a} to {b}.",
            "Because of the currents, ships use the lane from {a} to {b} one way only.",
        ),
        ask_standard="What is the minimum total sailing time of a route from {s} to {t}?",
        ask_standard_plain=(
            "What is the minimum number of shipping lanes on a route from {s} to {t}?"
        ),
        ask=("What is the shortest total sailing time for a cargo of timber from {s} to {t}?",),
        ask_plain=(
            "What is the smallest number of shipping lanes the cargo has to use to get from "
            "{s} to {t}?",
        ),
        opening=(
            "I broker freight along the coast, and a client wants a cargo of timber moved "
            "from {s} to {t}.",
        ),
        closing=("The client pays by the hour, so speed matters.",),
        distractors=(
            "The harbour cafe does a good breakfast.",
            "Timber prices have been steady all year.",
            "My client prefers phone calls to emails.",
            "A new lighthouse is being built further north.",
            "The sea is unusually calm this season.",
        ),
    ),
    Scenario(
        id="sp_metro_commute",
        task=_T,
        split="ood",
        title="Metro commute",
        setting="a city metro system",
        node="station",
        nodes="stations",
        edge="connection",
        edges="connections",
        meaning="a direct train connection between two stations",
        pool="metro",
        weight="travel time",
        unit="{w} minute{pl}",
        links=(
            "Trains between {a} and {b} take {wt}.",
            "The ride between {a} and {b} is {wt} in either direction.",
            "It is {wt} by train between {a} and {b}.",
        ),
        links_plain=("Trains run directly between {a} and {b}.", "{a} and {b} are adjacent stops."),
        arcs=(
            "There is a one-way service from {a} to {b} taking {wt}.",
            "The loop line runs one way from {a} to {b} and takes {wt}.",
        ),
        arcs_plain=(
            "There is a one-way service from {a} to {b}.",
            "The loop line runs one way from {a} to {b}.",
        ),
        ask_standard="What is the minimum total travel time of a route from {s} to {t}?",
        ask_standard_plain="What is the minimum number of connections on a route from {s} to {t}?",
        ask=(
            "What is the quickest total travel time from {s} to {t}?",
            "At the very least, how many minutes will it take me to get from {s} to {t}?",
        ),
        ask_plain=("What is the smallest number of connections I need to ride from {s} to {t}?",),
        opening=("I just started a new job, and every morning I take the metro from {s} to {t}.",),
        closing=("Changing trains is no problem for me.",),
        distractors=(
            "Taxis are unavailable today.",
            "I usually buy a coffee before I get on the train.",
            "My new office has a view of the river.",
            "The metro company just launched a new app.",
            "Some stations have very good buskers.",
        ),
    ),
    Scenario(
        id="sp_ski_resort",
        task=_T,
        split="ood",
        title="Getting around a ski resort",
        setting="a ski resort",
        node="landmark",
        nodes="landmarks",
        edge="connection",
        edges="connections",
        meaning="a lift, run or track between two landmarks",
        pool="resort",
        weight="travel time",
        unit="{w} minute{pl}",
        links=(
            "A flat track lets you travel between {a} and {b} in either direction in {wt}.",
            "Getting between {a} and {b} takes {wt}, whichever way you go.",
        ),
        links_plain=(
            "A flat track connects {a} and {b}.",
            "You can get directly between {a} and {b} in either direction.",
        ),
        arcs=(
            "A ski run goes from {a} down to {b} and takes {wt}.",
            "The chairlift carries you from {a} up to {b} in {wt}.",
        ),
        arcs_plain=(
            "A ski run goes from {a} down to {b}.",
            "The chairlift carries you from {a} up to {b}.",
        ),
        ask_standard="What is the minimum total travel time of a route from {s} to {t}?",
        ask_standard_plain="What is the minimum number of connections on a route from {s} to {t}?",
        ask=("What is the least total time it takes me to get from {s} to {t}?",),
        ask_plain=(
            "What is the smallest number of runs, lifts and tracks I need to take to get from "
            "{s} to {t}?",
        ),
        opening=(
            "I'm on a ski holiday, standing at {s}, and my friends are waiting for lunch at {t}.",
        ),
        closing=("I'm getting hungry.",),
        distractors=(
            "My goggles keep fogging up.",
            "The snow is perfect this week.",
            "I rented my skis from the shop in the village.",
            "Hot chocolate costs a fortune up here.",
            "A snowboarder just zoomed past me.",
        ),
    ),
)

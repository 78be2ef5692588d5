"""Vertex-cover scenarios: 6 from the paper's Table 8 and 4 held out for OOD.

Each question explains what a chosen node covers (every edge at it) and asks for the
smallest number of nodes that cover every edge.

Example:
    >>> len(SCENARIOS), sum(s.split == "ood" for s in SCENARIOS)
    (10, 4)
"""

from __future__ import annotations

from closurebench.surface.grit.scenarios.base import Scenario

__all__ = ["SCENARIOS"]

_T = "vertex_cover"
_IN = "in_distribution"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        id="vc_server_monitoring",
        task=_T,
        split=_IN,
        title="Server monitoring placement",
        setting="a server cluster",
        node="server",
        nodes="servers",
        edge="connection",
        edges="connections",
        meaning="a network connection between two servers",
        pool="stars",
        links=(
            "{a} talks directly to {b}.",
            "There is a network connection between {a} and {b}.",
            "{a} and {b} exchange traffic over a direct connection.",
        ),
        ask_standard=(
            "A monitoring agent on a server watches every connection of that server. What is "
            "the minimum number of servers that need an agent so that every connection is "
            "watched?"
        ),
        ask=(
            "What is the smallest number of servers I need to install the agent on so that "
            "every connection is watched from at least one end?",
        ),
        opening=(
            "I'm rolling out a traffic-monitoring agent across our servers, and each licence is "
            "expensive.",
        ),
        closing=("An agent sees all traffic in and out of its own server.",),
        distractors=(
            "Our on-call rota changes next week.",
            "The server room door sticks in humid weather.",
            "We finally retired the old mail server.",
            "The vendor offered us a free trial month.",
            "My team lead prefers dashboards in dark mode.",
        ),
    ),
    Scenario(
        id="vc_intersection_cameras",
        task=_T,
        split=_IN,
        title="Road intersection cameras",
        setting="a town's road network",
        node="intersection",
        nodes="intersections",
        edge="road",
        edges="roads",
        meaning="a road between two intersections",
        pool="city",
        links=(
            "A road runs between {a} and {b}.",
            "{a} and {b} are joined by a road.",
            "You can drive straight from {a} to {b}.",
        ),
        ask_standard=(
            "A camera at an intersection watches every road that ends there. What is the "
            "minimum number of intersections that need a camera so that every road is watched?"
        ),
        ask=(
            "What is the smallest number of intersections that need a camera so that every "
            "road is covered at one end or the other?",
        ),
        opening=("The town council asked me to plan traffic cameras for our road network.",),
        closing=("Cameras are pricey, so we want as few as possible.",),
        distractors=(
            "The council is also repainting the bus shelters.",
            "A farmers' market opens in the town square on Saturdays.",
            "Most residents cycle to work in the summer.",
            "The mayor's office moved to a new building.",
            "Our budget meeting ran over by an hour.",
        ),
    ),
    Scenario(
        id="vc_railway_security",
        task=_T,
        split=_IN,
        title="Railway security posts",
        setting="a regional railway",
        node="station",
        nodes="stations",
        edge="stretch of track",
        edges="stretches of track",
        meaning="a stretch of track between two stations",
        pool="stations",
        links=(
            "A stretch of track connects {a} and {b}.",
            "Trains run directly between {a} and {b}.",
            "{a} and {b} are next to each other on the line.",
        ),
        ask_standard=(
            "A security post at a station covers every stretch of track that ends there. What "
            "is the minimum number of stations that need a post so that every stretch of track "
            "is covered?"
        ),
        ask=(
            "What is the smallest number of stations that need a security post so that every "
            "stretch of track has a post at one of its ends?",
        ),
        opening=("I'm in charge of security planning for our regional railway.",),
        closing=("Each post needs two guards around the clock.",),
        distractors=(
            "The new trains have very comfortable seats.",
            "Our ticket machines are being upgraded.",
            "There was a brass band at the main station yesterday.",
            "Passenger numbers are up since the spring.",
            "The staff canteen now serves soup.",
        ),
    ),
    Scenario(
        id="vc_social_liaisons",
        task=_T,
        split=_IN,
        title="Social liaison selection",
        setting="a community group",
        node="member",
        nodes="members",
        edge="friendship",
        edges="friendships",
        meaning="a friendship between two members",
        pool="people",
        links=(
            "{a} and {b} are friends.",
            "{a} is good friends with {b}.",
            "{a} and {b} know each other well.",
        ),
        ask_standard=(
            "A liaison can pass messages along each of their own friendships. What is the "
            "minimum number of members who must be liaisons so that every friendship includes "
            "at least one liaison?"
        ),
        ask=(
            "What is the smallest number of liaisons I need so that every friendship has a "
            "liaison on at least one side?",
        ),
        opening=(
            "I'm organising a neighbourhood campaign, and I want to recruit some members of our "
            "community group as liaisons.",
        ),
        closing=("Liaisons have to give up their weekends, so I want to ask as few as possible.",),
        distractors=(
            "Our group meets in the church hall.",
            "The last bake sale raised a surprising amount.",
            "Someone brought a puppy to our last meeting.",
            "We are thinking of starting a book club.",
            "The newsletter is printed on recycled paper.",
        ),
    ),
    Scenario(
        id="vc_pipeline_sensors",
        task=_T,
        split=_IN,
        title="Pipeline sensor placement",
        setting="a water distribution network",
        node="junction",
        nodes="junctions",
        edge="pipe",
        edges="pipes",
        meaning="a pipe between two junctions",
        pool="pipeline",
        links=(
            "A pipe runs between {a} and {b}.",
            "{a} and {b} are connected by a pipe.",
        ),
        ask_standard=(
            "A leak sensor at a junction monitors every pipe connected to it. What is the "
            "minimum number of junctions that need a sensor so that every pipe is monitored?"
        ),
        ask=(
            "What is the smallest number of junctions that need a sensor so that every pipe is "
            "monitored from at least one end?",
        ),
        opening=("Our water utility wants to install leak sensors across the network.",),
        closing=("Each sensor has to be dug in by hand, so fewer is better.",),
        distractors=(
            "Water demand peaks in the early evening.",
            "Our new billing system went live last month.",
            "The reservoir is almost full after the rain.",
            "Two engineers are retiring this year.",
            "We sponsor the local football team.",
        ),
    ),
    Scenario(
        id="vc_campus_patrols",
        task=_T,
        split=_IN,
        title="Campus patrol posts",
        setting="a university campus",
        node="building",
        nodes="buildings",
        edge="footpath",
        edges="footpaths",
        meaning="a footpath between two buildings",
        pool="campus",
        links=(
            "A footpath connects {a} and {b}.",
            "{a} and {b} are joined by a footpath.",
            "There is a path straight from {a} to {b}.",
        ),
        ask_standard=(
            "A patrol post at a building can watch every footpath that leaves it. What is the "
            "minimum number of buildings that need a patrol post so that every footpath is "
            "watched?"
        ),
        ask=(
            "What is the smallest number of buildings that need a patrol post so that every "
            "footpath is watched from one end or the other?",
        ),
        opening=("I head campus security, and we are planning night patrols for the new term.",),
        closing=("I have a limited number of officers.",),
        distractors=(
            "Freshers' week starts on Monday.",
            "The campus cat has its own social media account.",
            "The library is open all night during exams.",
            "Our security van was repainted.",
            "A film crew is using the main lawn this week.",
        ),
    ),
    Scenario(
        id="vc_museum_guards",
        task=_T,
        split="ood",
        title="Museum doorway guards",
        setting="a museum",
        node="gallery",
        nodes="galleries",
        edge="doorway",
        edges="doorways",
        meaning="a doorway between two galleries",
        pool="museum",
        links=(
            "A doorway leads from {a} into {b}.",
            "{a} and {b} share a doorway.",
        ),
        ask_standard=(
            "A guard standing in a gallery can watch every doorway of that gallery. What is the "
            "minimum number of galleries that need a guard so that every doorway is watched?"
        ),
        ask=(
            "What is the fewest guards I can post, one per gallery, so that every doorway is "
            "watched from at least one side?",
        ),
        opening=(
            "I manage visitor services at a museum, and the insurers want every doorway watched.",
        ),
        closing=("Our guards are already stretched thin.",),
        distractors=(
            "The new dinosaur skeleton arrives next month.",
            "School visits are booked solid until the summer.",
            "The cafe now sells vegan scones.",
            "A famous painting is away on loan.",
            "Our audio guides were recorded by an actor.",
        ),
    ),
    Scenario(
        id="vc_firewall_placement",
        task=_T,
        split="ood",
        title="Firewall placement",
        setting="a company network",
        node="router",
        nodes="routers",
        edge="link",
        edges="links",
        meaning="a network link between two routers",
        pool="subnets",
        links=(
            "{a} and {b} share a direct link.",
            "There is a network link between {a} and {b}.",
        ),
        ask_standard=(
            "A firewall module on a router inspects every link attached to that router. What is "
            "the minimum number of routers that need a module so that every link is inspected?"
        ),
        ask=(
            "What is the smallest number of routers that need a firewall module so that every "
            "link is inspected at one end?",
        ),
        opening=("After a security audit, I have to put firewall modules on some of our routers.",),
        closing=("The modules are expensive and the budget is fixed.",),
        distractors=(
            "The auditors were very thorough.",
            "Our password policy changes next month.",
            "I spent the morning in a meeting about printers.",
            "The network diagram on the wall is out of date.",
            "We hired a new apprentice.",
        ),
    ),
    Scenario(
        id="vc_trail_rangers",
        task=_T,
        split="ood",
        title="Forest ranger stations",
        setting="a forest reserve",
        node="clearing",
        nodes="clearings",
        edge="trail",
        edges="trails",
        meaning="a trail between two clearings",
        pool="wilderness",
        links=(
            "A trail runs between {a} and {b}.",
            "{a} and {b} are linked by a trail.",
        ),
        ask_standard=(
            "A ranger stationed at a clearing watches every trail that leaves it. What is the "
            "minimum number of clearings that need a ranger so that every trail is watched?"
        ),
        ask=(
            "What is the smallest number of clearings I need to staff so that every trail is "
            "watched from at least one end?",
        ),
        opening=("Fire season is coming, and I have to station rangers in the reserve.",),
        closing=("Volunteers are hard to find this year.",),
        distractors=(
            "The owls have been very loud at night.",
            "Our visitor centre is being rebuilt.",
            "The stream is lower than usual.",
            "I found a beautiful feather this morning.",
            "Bears have not been seen here for a century.",
        ),
    ),
    Scenario(
        id="vc_festival_first_aid",
        task=_T,
        split="ood",
        title="Festival first-aid points",
        setting="a music festival site",
        node="spot",
        nodes="spots",
        edge="walkway",
        edges="walkways",
        meaning="a walkway between two spots on the site",
        pool="festival",
        links=(
            "A walkway runs between {a} and {b}.",
            "{a} and {b} are connected by a walkway.",
        ),
        ask_standard=(
            "A first-aid point at a spot covers every walkway that ends there. What is the "
            "minimum number of spots that need a first-aid point so that every walkway is "
            "covered?"
        ),
        ask=(
            "What is the smallest number of first-aid points needed so that every walkway has "
            "one at an end?",
        ),
        opening=("I'm planning medical cover for a music festival.",),
        closing=("Each point needs a nurse for the whole weekend.",),
        distractors=(
            "The main stage is bigger than last year.",
            "We expect a heatwave on the Saturday.",
            "The food trucks arrive on Thursday night.",
            "Tickets sold out in an afternoon.",
            "Glitter is banned this year.",
        ),
    ),
)

"""Graph-colouring scenarios: 7 from the paper's Table 8 and 4 held out for OOD.

Each scenario names its "colour" (a channel, a time slot, a table, a cabinet) in the
question; an edge is a conflict that forces two different colours.

Example:
    >>> len(SCENARIOS), sum(s.split == "ood" for s in SCENARIOS)
    (11, 4)
"""

from __future__ import annotations

from closurebench.surface.grit.scenarios.base import Scenario

__all__ = ["SCENARIOS"]

_T = "graph_coloring"
_IN = "in_distribution"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        id="col_wifi_channels",
        task=_T,
        split=_IN,
        title="Wi-Fi channel assignment",
        setting="an office Wi-Fi deployment",
        node="access point",
        nodes="access points",
        edge="overlap",
        edges="overlaps",
        meaning="a pair of access points whose coverage overlaps",
        pool="rooms",
        links=(
            "{a} and {b} are close enough to interfere with each other.",
            "The coverage of {a} overlaps with that of {b}.",
            "{a} interferes with {b}.",
        ),
        ask_standard=(
            "Each access point must be given a channel, and two access points whose coverage "
            "overlaps must use different channels. What is the minimum number of channels needed?"
        ),
        ask=(
            "What is the smallest number of channels I need so that no two access points that "
            "interfere share a channel?",
        ),
        opening=(
            "I'm setting up the Wi-Fi in our new office, and I have to pick a channel for every "
            "access point.",
        ),
        closing=("Fewer channels leaves more room for the guest network.",),
        distractors=(
            "The printer on the second floor keeps jamming.",
            "Our internet contract renews in the spring.",
            "Most people here work from home on Fridays.",
            "The landlord promised to fix the heating.",
            "I bought a new laptop bag yesterday.",
        ),
    ),
    Scenario(
        id="col_cellular_frequencies",
        task=_T,
        split=_IN,
        title="Cellular frequency planning",
        setting="a cellular network",
        node="cell tower",
        nodes="cell towers",
        edge="overlap",
        edges="overlaps",
        meaning="a pair of cell towers with overlapping coverage",
        pool="towers",
        links=(
            "The coverage areas of {a} and {b} overlap.",
            "{a} and {b} serve overlapping areas.",
            "Signals from {a} reach the area served by {b}.",
        ),
        ask_standard=(
            "Each cell tower must be assigned a frequency band, and towers with overlapping "
            "coverage must get different bands. What is the minimum number of bands needed?"
        ),
        ask=(
            "What is the minimum number of frequency bands we need so that no two overlapping "
            "towers share a band?",
        ),
        opening=("I'm planning frequencies for a regional mobile operator.",),
        closing=("Spectrum licences are expensive, so every band counts.",),
        distractors=(
            "Our marketing team wants a new logo.",
            "A storm knocked out power at head office last week.",
            "The regulator is holding a public consultation.",
            "I have been commuting by bike lately.",
            "Customer complaints are down this month.",
        ),
    ),
    Scenario(
        id="col_radio_channels",
        task=_T,
        split=_IN,
        title="Radio channel allocation",
        setting="a mountain rescue radio network",
        node="repeater",
        nodes="repeaters",
        edge="conflict",
        edges="conflicts",
        meaning="a pair of repeaters within radio range of each other",
        pool="zones",
        links=(
            "{a} and {b} are within radio range of each other.",
            "Transmissions from {a} can be heard at {b}.",
            "{a} is in range of {b}.",
        ),
        ask_standard=(
            "Each repeater must be given a radio channel, and repeaters within range of each "
            "other must use different channels. What is the minimum number of channels needed?"
        ),
        ask=(
            "How many radio channels do we need, at the very least, so that no two repeaters "
            "in range of each other share one?",
        ),
        opening=(
            "I coordinate radio communications for the mountain rescue service, and every "
            "repeater on the range needs a channel.",
        ),
        closing=("We only have a handful of licensed channels.",),
        distractors=(
            "Our new rescue dog is doing well in training.",
            "The helicopter crew visited us on Tuesday.",
            "Snow is expected on the higher slopes.",
            "We are raising money for a new vehicle.",
            "My radio headset needs new foam pads.",
        ),
    ),
    Scenario(
        id="col_loudspeaker_placement",
        task=_T,
        split=_IN,
        title="Event loudspeaker placement",
        setting="an outdoor festival sound system",
        node="loudspeaker",
        nodes="loudspeakers",
        edge="overlap",
        edges="overlaps",
        meaning="a pair of loudspeakers whose sound overlaps",
        pool="venue",
        links=(
            "The sound from {a} overlaps with the sound from {b}.",
            "{a} and {b} are placed close enough that their sound overlaps.",
        ),
        ask_standard=(
            "Each loudspeaker must be connected to an amplifier channel, and loudspeakers "
            "whose sound overlaps must be on different channels. What is the minimum number "
            "of channels needed?"
        ),
        ask=(
            "What is the smallest number of amplifier channels that keeps every pair of "
            "overlapping loudspeakers on different channels?",
        ),
        opening=(
            "I'm the sound engineer for a summer festival, and I'm wiring up the loudspeakers "
            "around the site.",
        ),
        closing=("Every extra channel means another amplifier to rent.",),
        distractors=(
            "The headliner's manager keeps changing the set list.",
            "We ran out of gaffer tape yesterday.",
            "The catering tent serves excellent curry.",
            "It might rain on the second day.",
            "My assistant is a big jazz fan.",
        ),
    ),
    Scenario(
        id="col_exam_timetabling",
        task=_T,
        split=_IN,
        title="Exam timetabling",
        setting="a university exam timetable",
        node="exam",
        nodes="exams",
        edge="clash",
        edges="clashes",
        meaning="a pair of exams that share at least one student",
        pool="courses",
        links=(
            "Some students take both {a} and {b}.",
            "{a} and {b} share at least one student.",
            "At least one student is enrolled in both {a} and {b}.",
        ),
        ask_standard=(
            "Each exam must be given a time slot, and two exams that share a student must be "
            "in different slots. What is the minimum number of time slots needed?"
        ),
        ask=(
            "What is the smallest number of time slots that lets every student sit all of "
            "their exams without a clash?",
        ),
        opening=(
            "I'm the exams officer at our university, and I have to fit all of this term's "
            "exams into the timetable.",
        ),
        closing=("The sports hall is only booked for a few days.",),
        distractors=(
            "The sports hall floor was just refinished.",
            "Invigilators asked for longer breaks this year.",
            "The library will stay open late during exam season.",
            "Our printer for exam papers was replaced.",
            "The student union is organising a revision fair.",
        ),
    ),
    Scenario(
        id="col_map_regions",
        task=_T,
        split=_IN,
        title="Map region colouring",
        setting="a map",
        node="region",
        nodes="regions",
        edge="border",
        edges="borders",
        meaning="a pair of regions that share a border",
        pool="regions",
        links=(
            "{a} shares a border with {b}.",
            "{a} and {b} are neighbours on the map.",
            "The border between {a} and {b} is quite long.",
        ),
        ask_standard=(
            "Each region must be coloured so that regions sharing a border get different "
            "colours. What is the minimum number of colours needed?"
        ),
        ask=(
            "What is the fewest colours I can use so that no two neighbouring regions look "
            "the same?",
        ),
        opening=("I'm drawing a map of a fictional kingdom for my board game.",),
        closing=("I only have a small box of coloured pencils.",),
        distractors=(
            "The kingdom is ruled by a very old queen.",
            "My brother is designing the playing cards.",
            "The map will be printed on thick card.",
            "There is a dragon on the cover of the box.",
            "We play-tested the rules last weekend.",
        ),
    ),
    Scenario(
        id="col_equipment_layout",
        task=_T,
        split=_IN,
        title="Interference-aware equipment layout",
        setting="a research laboratory",
        node="instrument",
        nodes="instruments",
        edge="interference",
        edges="interferences",
        meaning="a pair of instruments that interfere with each other electrically",
        pool="equipment",
        links=(
            "{a} and {b} cause electrical interference when they share a circuit.",
            "{a} interferes with {b}.",
        ),
        ask_standard=(
            "Each instrument must be assigned to a power circuit, and two instruments that "
            "interfere must be on different circuits. What is the minimum number of circuits "
            "needed?"
        ),
        ask=(
            "What is the minimum number of power circuits I need so that no two interfering "
            "instruments share one?",
        ),
        opening=(
            "I'm laying out the power for our new lab, and some of the instruments cannot share "
            "a circuit.",
        ),
        closing=("The electrician charges for every circuit we add.",),
        distractors=(
            "The lab has a lovely view of the car park.",
            "Our grant was renewed for another year.",
            "The fire alarm test is on Thursday morning.",
            "Someone keeps taking my favourite mug.",
            "The new postdoc starts next week.",
        ),
    ),
    Scenario(
        id="col_wedding_tables",
        task=_T,
        split="ood",
        title="Wedding seating plan",
        setting="a wedding reception",
        node="guest",
        nodes="guests",
        edge="feud",
        edges="feuds",
        meaning="a pair of guests who must not sit at the same table",
        pool="ood_people",
        links=(
            "{a} and {b} cannot stand each other.",
            "{a} must not sit at the same table as {b}.",
            "There is an old feud between {a} and {b}.",
        ),
        ask_standard=(
            "Each guest must be seated at a table, and guests who must not sit together must be "
            "at different tables. What is the minimum number of tables needed?"
        ),
        ask=(
            "What is the smallest number of tables that keeps every feuding pair apart, if a "
            "table can seat any number of people?",
        ),
        opening=("I'm organising my sister's wedding, and the seating plan is a nightmare.",),
        closing=("The venue charges for each table we set up.",),
        distractors=(
            "The cake will have three tiers.",
            "My sister wants sunflowers everywhere.",
            "The band only plays music from the seventies.",
            "Grandma is giving a speech.",
            "We booked a photographer for the whole day.",
        ),
    ),
    Scenario(
        id="col_chemical_storage",
        task=_T,
        split="ood",
        title="Chemical storage cabinets",
        setting="a school chemistry store room",
        node="chemical",
        nodes="chemicals",
        edge="incompatibility",
        edges="incompatibilities",
        meaning="a pair of chemicals that must never be stored together",
        pool="chemicals",
        links=(
            "{a} reacts dangerously with {b}.",
            "{a} and {b} must never be stored together.",
        ),
        ask_standard=(
            "Each chemical must be placed in a cabinet, and two incompatible chemicals must be "
            "in different cabinets. What is the minimum number of cabinets needed?"
        ),
        ask=(
            "How many cabinets do I need, at minimum, so that no incompatible pair ends up "
            "together?",
        ),
        opening=(
            "I'm the lab technician at a secondary school, and the safety inspector wants our "
            "store room reorganised.",
        ),
        closing=("Space in the store room is very tight.",),
        distractors=(
            "The inspector was very polite about it.",
            "Our fume cupboard was serviced last term.",
            "Year ten are doing titrations this week.",
            "The store room light flickers constantly.",
            "I ordered new safety goggles for everyone.",
        ),
    ),
    Scenario(
        id="col_committee_meetings",
        task=_T,
        split="ood",
        title="Committee meeting slots",
        setting="a charity's committee calendar",
        node="committee",
        nodes="committees",
        edge="shared member",
        edges="shared members",
        meaning="a pair of committees that have a member in common",
        pool="committees",
        links=(
            "{a} and {b} have a member in common.",
            "Someone sits on both {a} and {b}.",
        ),
        ask_standard=(
            "Each committee must meet in a time slot, and committees with a member in common "
            "must meet in different slots. What is the minimum number of time slots needed?"
        ),
        ask=(
            "What is the fewest meeting slots we can use so that nobody has two meetings at once?",
        ),
        opening=(
            "I'm the volunteer coordinator at a charity, and every committee needs to meet "
            "on our away day.",
        ),
        closing=("The away day is short, so fewer slots is better.",),
        distractors=(
            "Lunch will be provided by a local bakery.",
            "Our chair is retiring in the summer.",
            "The venue has a lovely garden.",
            "We raised more money than expected last year.",
            "Parking at the venue is free.",
        ),
    ),
    Scenario(
        id="col_aquarium_tanks",
        task=_T,
        split="ood",
        title="Aquarium tank allocation",
        setting="a public aquarium",
        node="species",
        nodes="species",
        edge="conflict",
        edges="conflicts",
        meaning="a pair of fish species that cannot share a tank",
        pool="fish",
        links=(
            "{a} would attack {b} if they shared a tank.",
            "{a} and {b} cannot live in the same tank.",
        ),
        ask_standard=(
            "Each species must be placed in a tank, and species that cannot share a tank must "
            "be in different tanks. What is the minimum number of tanks needed?"
        ),
        ask=(
            "What is the smallest number of tanks that keeps every incompatible pair of species "
            "apart?",
        ),
        opening=(
            "I'm the curator at a small public aquarium, and we are moving to a new building.",
        ),
        closing=("Each tank costs a lot to run.",),
        distractors=(
            "Our octopus escaped twice last year.",
            "School groups visit every Tuesday.",
            "The new building has a glass tunnel.",
            "Our penguins are not part of this move.",
            "The gift shop sells plush turtles.",
        ),
    ),
)

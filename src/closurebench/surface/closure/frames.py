"""The 16 domain frames of ClosureBench questions: nouns, verbs and path phrases.

A frame gives the vocabulary a question is written in: the node noun, the edge verb in
singular and plural (``"pays"``/``"pay"``), its reversed form (``"is paid by"``), the
path phrase (``"through a chain of payments"``), forward synonyms for the varied style,
an undirected phrasing for the triangle categories, and, for kinship-capable frames, a
parent -> child vocabulary (:class:`Kin`).

The general verbs' plural doubles as the infinitive in questions ("does A pay"), so
they avoid "is"/"are"; a plural led by a modal ("can connect to") is questioned by
inversion ("can A connect to", :func:`~closurebench.surface.closure.questions.do_support`).
Every verb phrase takes one object or a list of objects ("A is a parent to B and C"), as
the grouped styles need. Kinship categories render edges with :class:`Kin` verbs instead.

Decision: the ``kinship`` frame is used only by the kinship categories (a general random
digraph with cycles has no sensible parent reading); ``academia`` (advisor -> student)
and ``abstract`` (parent -> child node) serve both kinship and general categories.

Example:
    >>> len(FRAMES), FRAMES["fraud_detection"].fwd, FRAMES["fraud_detection"].rev[0]
    (16, ('pays', 'pay'), 'is paid by')
    >>> kinship_frames()
    ('kinship', 'academia', 'abstract')
    >>> "kinship" in general_frames()
    False
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FRAMES", "Frame", "Kin", "Verb", "general_frames", "kinship_frames"]

Verb = tuple[str, str]  # (third person singular, plural/base form)


@dataclass(frozen=True)
class Kin:
    """Parent -> child vocabulary of a kinship-capable frame.

    Attributes:
        fwd: Parent-to-child verb (``("is a parent of", "are parents of")``).
        rev: Child-to-parent verb.
        syns: Forward synonyms for the varied style.
        parent: Singular parent noun; ``parents``, ``children`` likewise.
        grandparent: Phrase for a parent's parent.
        ancestors: Word for all ancestors; ``siblings``, ``cousins``, ``grandchildren``
            likewise.
    """

    fwd: Verb
    rev: Verb
    syns: tuple[Verb, ...]
    parent: str
    parents: str
    children: str
    grandparent: str
    ancestors: str
    siblings: str
    cousins: str
    grandchildren: str


@dataclass(frozen=True)
class Frame:
    """One domain frame.

    Attributes:
        key: Frame name (the instance's ``domain``).
        noun: Node noun, singular; ``nouns`` plural (unique across frames).
        links: Plural noun for the edges (``"payments"``).
        fwd: Edge verb ``u -> v`` as (singular, plural).
        rev: Reversed verb ``v <- u`` as (singular, plural).
        path: Phrase for a directed path.
        syns: Forward synonyms (the varied style).
        und: Undirected verb (``("works with", "work with")``).
        und_links: Plural noun for undirected links.
        kin: Parent -> child vocabulary, or ``None`` when not kinship-capable.
        kin_only: Used only by kinship categories.
        person: Nodes are people (no "itself" after a person's name).
    """

    key: str
    noun: str
    nouns: str
    links: str
    fwd: Verb
    rev: Verb
    path: str
    syns: tuple[Verb, ...]
    und: Verb
    und_links: str
    kin: Kin | None = None
    kin_only: bool = False
    person: bool = False


def _f(key: str, noun: str, nouns: str, links: str, fwd: Verb, rev: Verb, path: str,
       syns: tuple[Verb, ...], und: Verb, und_links: str, kin: Kin | None = None,
       kin_only: bool = False, person: bool = False) -> Frame:  # fmt: skip
    return Frame(
        key, noun, nouns, links, fwd, rev, path, syns, und, und_links, kin, kin_only, person
    )


_FAMILY = Kin(
    fwd=("is a parent of", "are parents of"),
    rev=("is a child of", "are children of"),
    syns=(("is the parent of", "are the parents of"), ("is a parent to", "are parents to")),
    parent="parent",
    parents="parents",
    children="children",
    grandparent="grandparent",
    ancestors="ancestors",
    siblings="siblings",
    cousins="cousins",
    grandchildren="grandchildren",
)
_ACADEMIC = Kin(
    fwd=("is the doctoral advisor of", "are the doctoral advisors of"),
    rev=("is a doctoral student of", "are doctoral students of"),
    syns=(("is the PhD supervisor of", "are the PhD supervisors of"),),
    parent="advisor",
    parents="advisors",
    children="students",
    grandparent="advisor's advisor",
    ancestors="academic ancestors",
    siblings="academic siblings",
    cousins="academic cousins",
    grandchildren="academic grandchildren",
)
_TREE = Kin(
    fwd=("is a parent of", "are parents of"),
    rev=("is a child of", "are children of"),
    syns=(("is the parent node of", "are the parent nodes of"),),
    parent="parent",
    parents="parents",
    children="children",
    grandparent="grandparent",
    ancestors="ancestors",
    siblings="siblings",
    cousins="cousins",
    grandchildren="grandchildren",
)

_ALL = (
    _f("fraud_detection", "account", "accounts", "payments", ("pays", "pay"),
       ("is paid by", "are paid by"), "through a chain of payments",
       (("sends money to", "send money to"), ("transfers funds to", "transfer funds to")),
       ("transacts with", "transact with"), "transaction links"),
    _f("supply_chain", "supplier", "suppliers", "shipments", ("ships to", "ship to"),
       ("receives components from", "receive components from"), "along the supply chain",
       (("delivers to", "deliver to"), ("supplies", "supply")),
       ("trades with", "trade with"), "trading relationships"),
    _f("cybersecurity", "host", "hosts", "connections", ("can connect to", "can connect to"),
       ("accepts connections from", "accept connections from"),
       "through a chain of connections",
       (("has network access to", "have network access to"),
        ("can open a session on", "can open sessions on")),
       ("shares a network segment with", "share a network segment with"), "network links"),
    _f("compliance", "entity", "entities", "reporting lines", ("reports to", "report to"),
       ("receives reports from", "receive reports from"), "through a chain of reporting lines",
       (("files reports with", "file reports with"), ("submits filings to", "submit filings to")),
       ("shares an auditor with", "share an auditor with"), "shared-auditor links"),
    _f("kinship", "person", "people", "parent-child relationships", _FAMILY.fwd, _FAMILY.rev,
       "through a line of descent", _FAMILY.syns, ("is related to", "are related to"),
       "family ties", kin=_FAMILY, kin_only=True, person=True),
    _f("healthcare", "clinic", "clinics", "patient referrals", ("refers patients to",
       "refer patients to"), ("receives patients from", "receive patients from"),
       "through a chain of referrals",
       (("sends patients to", "send patients to"), ("transfers cases to", "transfer cases to")),
       ("shares patient records with", "share patient records with"), "record-sharing links"),
    _f("logistics", "depot", "depots", "delivery routes", ("dispatches trucks to",
       "dispatch trucks to"), ("receives trucks from", "receive trucks from"),
       "along a sequence of delivery routes",
       (("sends freight to", "send freight to"), ("routes parcels to", "route parcels to")),
       ("shares a loading dock with", "share a loading dock with"), "shared docks"),
    _f("social_media", "user", "users", "follows", ("follows", "follow"),
       ("is followed by", "are followed by"), "through a chain of follows",
       (("subscribes to", "subscribe to"), ("is a follower of", "are followers of")),
       ("is friends with", "are friends with"), "friendships", person=True),
    _f("academia", "researcher", "researchers", "mentoring relations", ("mentors", "mentor"),
       ("is mentored by", "are mentored by"), "through a chain of mentoring",
       (("gives guidance to", "give guidance to"), ("coaches", "coach")),
       ("co-authors with", "co-author with"), "co-authorships", kin=_ACADEMIC, person=True),
    _f("banking", "bank", "banks", "interbank loans", ("lends to", "lend to"),
       ("borrows from", "borrow from"), "through a chain of interbank loans",
       (("extends credit to", "extend credit to"), ("provides loans to", "provide loans to")),
       ("holds a swap line with", "hold a swap line with"), "swap lines"),
    _f("real_estate", "agency", "agencies", "client referrals", ("refers clients to",
       "refer clients to"), ("gets clients from", "get clients from"),
       "through a chain of client referrals",
       (("passes leads to", "pass leads to"), ("sends buyers to", "send buyers to")),
       ("co-lists properties with", "co-list properties with"), "co-listing agreements"),
    _f("telecommunications", "switch", "switches", "call routes", ("forwards calls to",
       "forward calls to"), ("takes calls from", "take calls from"),
       "through a chain of call forwarding",
       (("routes traffic to", "route traffic to"), ("hands off calls to", "hand off calls to")),
       ("is cabled to", "are cabled to"), "cable links"),
    _f("energy", "station", "stations", "power lines", ("supplies power to",
       "supply power to"), ("draws power from", "draw power from"),
       "through a chain of power lines",
       (("feeds electricity to", "feed electricity to"), ("powers", "power")),
       ("is interconnected with", "are interconnected with"), "interconnections"),
    _f("government", "department", "departments", "oversight relations", ("oversees", "oversee"),
       ("reports to", "report to"), "through a chain of oversight",
       (("supervises", "supervise"), ("has authority over", "have authority over")),
       ("shares a budget with", "share a budget with"), "shared budgets"),
    _f("transport", "town", "towns", "bus routes", ("has a bus to", "have buses to"),
       ("is served by a bus from", "are served by buses from"), "by a sequence of bus rides",
       (("runs a coach to", "run coaches to"), ("has a direct train to", "have direct trains to")),
       ("has a road to", "have roads to"), "roads"),
    _f("abstract", "node", "nodes", "edges", ("points to", "point to"),
       ("is pointed to by", "are pointed to by"), "along a directed path",
       (("has an edge to", "have edges to"), ("links to", "link to")),
       ("is adjacent to", "are adjacent to"), "edges", kin=_TREE),
)  # fmt: skip

FRAMES: dict[str, Frame] = {f.key: f for f in _ALL}


def kinship_frames() -> tuple[str, ...]:
    """Frames with a parent -> child reading (the only ones kinship categories draw)."""
    return tuple(k for k, f in FRAMES.items() if f.kin is not None)


def general_frames() -> tuple[str, ...]:
    """Frames the non-kinship categories draw from (all but kinship-only ones)."""
    return tuple(k for k, f in FRAMES.items() if not f.kin_only)

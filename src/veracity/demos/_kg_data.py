"""The small academic-world knowledge graph used by ``veracity demo kg`` (seed 000).

Fifteen entities — seven people, five papers, three institutions — and four
relations. ``TRIPLES`` are all the known-true facts of this closed world;
``TEST`` are true facts held out of training (the link predictor never sees
them as positives), including the seed's three shapes ``(bob, advises, dave)``,
``(bob, authored, p1)`` and ``(erin, affiliated, cmu)``. ``TRAIN`` is the rest.
"""

from __future__ import annotations

PEOPLE = ("alice", "bob", "carol", "dave", "erin", "frank", "grace")
PAPERS = ("p1", "p2", "p3", "p4", "p5")
INSTITUTIONS = ("mit", "cmu", "eth")
ENTITIES = PEOPLE + PAPERS + INSTITUTIONS
RELATIONS = ("advises", "authored", "affiliated", "cites")

#: every known-true triple (head, relation, tail) of the closed world
TRIPLES: tuple[tuple[str, str, str], ...] = (
    # advisor -> student
    ("alice", "advises", "bob"),
    ("alice", "advises", "carol"),
    ("bob", "advises", "dave"),
    ("bob", "advises", "erin"),
    ("carol", "advises", "frank"),
    ("erin", "advises", "grace"),
    # person -> paper
    ("alice", "authored", "p1"),
    ("bob", "authored", "p1"),
    ("bob", "authored", "p2"),
    ("carol", "authored", "p2"),
    ("dave", "authored", "p3"),
    ("erin", "authored", "p3"),
    ("erin", "authored", "p4"),
    ("frank", "authored", "p4"),
    ("grace", "authored", "p5"),
    ("carol", "authored", "p5"),
    # person -> institution
    ("alice", "affiliated", "mit"),
    ("bob", "affiliated", "mit"),
    ("carol", "affiliated", "cmu"),
    ("dave", "affiliated", "mit"),
    ("erin", "affiliated", "cmu"),
    ("frank", "affiliated", "eth"),
    ("grace", "affiliated", "eth"),
    # paper -> paper
    ("p2", "cites", "p1"),
    ("p3", "cites", "p1"),
    ("p3", "cites", "p2"),
    ("p4", "cites", "p2"),
    ("p4", "cites", "p3"),
    ("p5", "cites", "p3"),
    ("p5", "cites", "p4"),
)

#: true triples held out of training: the test positives
TEST: tuple[tuple[str, str, str], ...] = (
    ("bob", "advises", "dave"),
    ("bob", "authored", "p1"),
    ("erin", "affiliated", "cmu"),
    ("carol", "authored", "p5"),
    ("frank", "affiliated", "eth"),
    ("p5", "cites", "p3"),
)

TRAIN: tuple[tuple[str, str, str], ...] = tuple(t for t in TRIPLES if t not in TEST)

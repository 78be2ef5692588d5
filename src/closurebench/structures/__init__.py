"""Structure types: what a question says, in node ids, below both ``tasks/`` and ``surface/``.

* :mod:`closurebench.structures.closure` — :class:`ClosureStructure` (graph(s) and anchors);
* :mod:`closurebench.structures.grit` — :class:`GritStructure` (graph and query parameters)
  and the per-view facts a rendered GRIT question carries.

The layers, lowest first: ``errors``/``seeding``/``jsonl``/``schema`` → ``graphs`` → ``ein``
→ ``structures`` (beside ``sandbox``) → ``tasks`` → ``surface`` (beside ``tools``) →
``scoring`` → ``generate`` → ``evaluate`` → ``report``, ``train`` → ``cli``, ``generator``
(``tests/test_layers.py`` enforces it).
"""

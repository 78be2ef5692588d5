"""Graph core: seeded samplers, exact closure, measures, networkx conversion."""

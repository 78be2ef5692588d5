"""Allow ``python -m closurebench``."""

from closurebench.cli import main

if __name__ == "__main__":
    main()

"""``python -m paigow.cli``."""

from paigow.cli.main import main

main()

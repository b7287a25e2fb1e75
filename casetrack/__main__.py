"""`python -m casetrack` runs the CLI."""

from casetrack.cli.main import main

main()

"""Entry layer: the `casetrack` command line (click); reads flags and environment once, renders the app's records as text or `--json`, hands ingests to the daemon when it runs."""

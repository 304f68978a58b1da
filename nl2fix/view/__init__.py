"""`nl2fix view`: a read-only local web app (Flask, jinja2 templates, its own CSS and JavaScript) over
one or more run stores: runs, a run's bugs, a bug's candidates, runs compared; or the same pages written
as static files. May import everything below it except fix: the store, the report layer (whose numbers
and tables it shows), validation (verdicts, raw logs), sampling (what a conversation's model was told)
and ranking (diffs)."""

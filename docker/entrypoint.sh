#!/bin/sh
# `prepare BUG...` checks out and compiles Defects4J bugs into the cache volume ahead of
# validation; anything else runs as given (e.g. `nl2fix validate --run /runs/X --engine defects4j`).
set -e
if [ "$1" = "prepare" ]; then
    shift
    exec python3 -m defects4j_adapter.workspaces.defects4j "$@"
fi
exec "$@"

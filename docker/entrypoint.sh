#!/bin/sh
# `prepare BUG...` checks out and compiles Defects4J bugs into the cache volume ahead of
# validation; anything else runs as given (e.g. `nl2fix validate --run /runs/X --engine defects4j`).
# As the container's root (the image's default) nl2fix runs each job as a uid of its own
# (ContainerSandbox): what it writes into the mounted runs folder goes back to that folder's owner.
set -e
if [ "$1" = "prepare" ]; then
    shift
    set -- python3 -m defects4j_adapter.workspaces.defects4j "$@"
fi
if [ "$(id -u)" != 0 ]; then
    exec "$@"
fi
owner=$(stat -c %u:%g /runs)
status=0
"$@" || status=$?
chown -R "$owner" /runs
exit $status

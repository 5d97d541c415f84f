#!/bin/sh
# Entry point of the SessionHub container: `sessionhub serve` configured from the same
# SESSIONHUB_* variables as deploy/sessionhub.env.example. Extra arguments are passed on, e.g.
#   docker run ... sessionhub:0.6.0 --threads 4 --no-compression
# It always listens on 0.0.0.0 inside the container (publish the port with -p to choose where
# it is reachable), keeps its database in the /var/lib/sessionhub volume and logs JSON lines.
set -eu

secret_file="${SESSIONHUB_SECRET_FILE:-/run/secrets/sessionhub_secret}"
if [ -z "${SESSIONHUB_SECRET:-}" ] && [ ! -s "$secret_file" ]; then
  echo '{"level":"critical","label":"sessionhub","message":"no secret: set SESSIONHUB_SECRET or mount a secret file at '"$secret_file"'","metadata":{}}' >&2
  exit 78  # EX_CONFIG
fi

# Settings of the tree (`sessionhub settings`) come from SESSIONHUB_* variables as they are;
# the container drains for 10 s unless told otherwise.
export SESSIONHUB_SERVER_DRAIN_TIMEOUT="${SESSIONHUB_SERVER_DRAIN_TIMEOUT:-10}"

# shellcheck disable=SC2086  # SESSIONHUB_EXTRA_OPTS is a list of options, split on spaces.
exec /opt/sessionhub/bin/sessionhub serve \
  --host 0.0.0.0 \
  --port "${SESSIONHUB_PORT:-8080}" \
  --database "${SESSIONHUB_DATABASE:-/var/lib/sessionhub/sessionhub.sqlite}" \
  --secret-file "$secret_file" \
  --log-level "${SESSIONHUB_LOG_LEVEL:-info}" \
  --log-format "${SESSIONHUB_LOG_FORMAT:-json}" \
  ${SESSIONHUB_EXTRA_OPTS:-} \
  "$@"

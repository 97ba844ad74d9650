#!/usr/bin/env bash
# Download the Amazon RDS global CA bundle into layers/shared/certs/, where the layer build
# (layers/shared/Makefile) ships it from: /opt/rhumbline-certs/rds-global-bundle.pem in Lambda,
# what RHUMBLINE_DB_SSL=verify-full trusts for Aurora. Run it on a machine with network access
# before `scripts/sam.sh build` when the build machine itself is offline.
#
#   scripts/fetch-rds-ca.sh [URL]
set -euo pipefail

URL="${1:-https://truststore.pki.rds.amazonaws.com/global/global-bundle.pem}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="$ROOT/layers/shared/certs/rds-global-bundle.pem"

mkdir -p "$(dirname "$TARGET")"
tmp="$(mktemp "$TARGET.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
curl -fsS --connect-timeout 10 -m 60 -o "$tmp" "$URL"
count=$(grep -c "BEGIN CERTIFICATE" "$tmp" || true)
python3 -c 'import ssl, sys; ssl.create_default_context(cafile=sys.argv[1])' "$tmp" \
    || { echo "fetch-rds-ca.sh: $URL is not a PEM certificate bundle" >&2; exit 1; }
mv "$tmp" "$TARGET"
trap - EXIT
echo "fetch-rds-ca.sh: $count certificates in $TARGET (sha256 $(sha256sum "$TARGET" | cut -c1-16))"

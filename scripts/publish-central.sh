#!/usr/bin/env bash
# Uploads a release bundle (scripts/release.sh --bundle writes dist/txn-rocksdb-<version>-bundle.zip,
# Maven Central's bundle layout, signed, with checksums: the components txn-rocksdb-streams and
# txn-rocksdb-tool, one deployment) to the Central Publisher Portal, then polls
# the deployment's status until the Portal has validated it (and, with AUTOMATIC, published it) or
# failed it. .github/workflows/release.yml runs it on a v* tag; it can be run by hand as well.
#
#   CENTRAL_TOKEN_USERNAME=... CENTRAL_TOKEN_PASSWORD=... scripts/publish-central.sh [options] BUNDLE
#
# --publishing-type=USER_MANAGED|AUTOMATIC (default: $CENTRAL_PUBLISHING_TYPE, else USER_MANAGED):
#   USER_MANAGED stops at VALIDATED: a maintainer looks at the deployment on central.sonatype.com
#   (Deployments) and presses Publish, or Drop. A release on Maven Central can never be removed or
#   replaced, so until a few releases have gone through, a person looks before it is public.
#   AUTOMATIC publishes as soon as the Portal's validation passes, and this script then waits for
#   PUBLISHED.
# --name=NAME: the deployment's name in the Portal (default: the bundle's file name without .zip).
# --attempts=N, --interval=S: how often the status is asked (default 90 times, every 20 s: 30
#   minutes, enough for PUBLISHING, which takes several minutes to half an hour).
# --dry-run: prints the requests it would send (with the credentials left out) and sends nothing;
#   needs no credentials.
#
# The credentials are a Portal user token (central.sonatype.com, Account, Generate User Token), read
# from the environment only: the Authorization header (Bearer base64(username:password), the Portal
# API's scheme) is written to a file of mode 600 that curl reads (-H @file), so it is on no command
# line and in no log. Prints the deployment id; the last line is its final state. Exits 1 when the
# deployment FAILED (its errors printed), when the polls run out, or on an HTTP error.
set -euo pipefail
api="${CENTRAL_PORTAL_URL:-https://central.sonatype.com}/api/v1/publisher"
publishing_type="${CENTRAL_PUBLISHING_TYPE:-USER_MANAGED}"
name=""
attempts=90
interval=20
dry_run=false
bundle=""
for arg in "$@"; do
  case "$arg" in
    --publishing-type=*) publishing_type="${arg#*=}" ;;
    --name=*) name="${arg#*=}" ;;
    --attempts=*) attempts="${arg#*=}" ;;
    --interval=*) interval="${arg#*=}" ;;
    --dry-run) dry_run=true ;;
    -*) echo "publish-central.sh: unknown option $arg" >&2; exit 2 ;;
    *) [[ -z $bundle ]] || { echo "publish-central.sh: one bundle only" >&2; exit 2; }; bundle="$arg" ;;
  esac
done
[[ -n $bundle ]] || { echo "usage: publish-central.sh [--publishing-type=USER_MANAGED|AUTOMATIC] [--dry-run] BUNDLE.zip" >&2; exit 2; }
[[ -f $bundle ]] || { echo "publish-central.sh: $bundle: no such file" >&2; exit 1; }
case "$publishing_type" in
  USER_MANAGED) done_state=VALIDATED ;;
  AUTOMATIC) done_state=PUBLISHED ;;
  *) echo "publish-central.sh: publishing type $publishing_type is neither USER_MANAGED nor AUTOMATIC" >&2; exit 2 ;;
esac
[[ $attempts =~ ^[1-9][0-9]*$ && $interval =~ ^[0-9]+$ ]] || { echo "publish-central.sh: --attempts and --interval take whole numbers" >&2; exit 2; }
name="${name:-$(basename "$bundle" .zip)}"
# The bundle must at least be a zip holding a POM and its signature (the Portal checks the rest).
if command -v unzip >/dev/null 2>&1; then
  listing="$(unzip -Z1 "$bundle" 2>/dev/null)" || { echo "publish-central.sh: $bundle is not a zip" >&2; exit 1; }
  if ! grep -qE '\.pom$' <<<"$listing" || ! grep -qE '\.pom\.asc$' <<<"$listing"; then
    echo "publish-central.sh: $bundle holds no signed POM (.pom and .pom.asc): not a Central bundle" >&2
    exit 1
  fi
fi
# The name goes into the query string: percent-encode everything but unreserved characters.
urlencode() {
  local s="$1" out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c="${s:i:1}"
    case "$c" in
      [A-Za-z0-9._~-]) out+="$c" ;;
      *) out+="$(printf '%%%02X' "'$c")" ;;
    esac
  done
  printf '%s' "$out"
}
upload_url="$api/upload?name=$(urlencode "$name")&publishingType=$publishing_type"

if [[ $dry_run == true ]]; then
  echo "publish-central.sh: dry run, nothing sent. It would send:"
  echo "  POST $upload_url"
  echo "    Authorization: Bearer <base64 of \$CENTRAL_TOKEN_USERNAME:\$CENTRAL_TOKEN_PASSWORD>"
  echo "    Content-Type: multipart/form-data, part \"bundle\": $(basename "$bundle") ($(wc -c <"$bundle" | tr -d ' ') bytes, application/octet-stream)"
  echo "  then, with the deployment id the upload answers, up to $attempts times every $interval s:"
  echo "  POST $api/status?id=<deployment id>"
  echo "    Authorization: Bearer <same>"
  echo "  until deploymentState is $done_state (success) or FAILED"
  exit 0
fi

[[ -n ${CENTRAL_TOKEN_USERNAME:-} && -n ${CENTRAL_TOKEN_PASSWORD:-} ]] || {
  echo "publish-central.sh: CENTRAL_TOKEN_USERNAME and CENTRAL_TOKEN_PASSWORD must be set (a Portal user token)" >&2
  exit 1
}
command -v curl >/dev/null 2>&1 || { echo "publish-central.sh: needs curl" >&2; exit 1; }
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
chmod 700 "$scratch"
header="$scratch/authorization"
(
  umask 077
  # printf is a shell builtin: the credentials are on no process's command line.
  printf 'Authorization: Bearer %s\n' "$(printf '%s:%s' "$CENTRAL_TOKEN_USERNAME" "$CENTRAL_TOKEN_PASSWORD" | base64 | tr -d '\n')" >"$header"
)

# curl with the header file; writes the body to $scratch/body and prints the HTTP status. The upload
# is sent once (a retry could make a second deployment); the status polls retry.
request() {
  curl --silent --show-error --max-time 600 -H @"$header" -o "$scratch/body" -w '%{http_code}' "$@"
}

echo "publish-central.sh: uploading $(basename "$bundle") ($(wc -c <"$bundle" | tr -d ' ') bytes) as \"$name\", $publishing_type"
code="$(request -X POST -F "bundle=@$bundle;type=application/octet-stream" "$upload_url")" || {
  echo "publish-central.sh: the upload failed (curl)" >&2
  exit 1
}
if [[ $code != 2?? ]]; then
  echo "publish-central.sh: the upload was refused: HTTP $code: $(head -c 2000 "$scratch/body")" >&2
  exit 1
fi
# The upload answers with the deployment id, as plain text.
deployment="$(tr -d '[:space:]"' <"$scratch/body")"
[[ $deployment =~ ^[A-Za-z0-9-]+$ ]] || { echo "publish-central.sh: unexpected answer to the upload: $(head -c 500 "$scratch/body")" >&2; exit 1; }
echo "publish-central.sh: deployment $deployment"

# The status answers JSON: {"deploymentId", "deploymentName", "deploymentState", "purls", "errors"}.
state_of() {
  if command -v jq >/dev/null 2>&1; then
    jq -r '.deploymentState // empty' "$1"
  else
    sed -nE 's/.*"deploymentState"[[:space:]]*:[[:space:]]*"([A-Z_]+)".*/\1/p' "$1" | head -n1
  fi
}
last=""
for ((i = 1; i <= attempts; i++)); do
  code="$(request --retry 3 --retry-delay 5 -X POST "$api/status?id=$deployment")" || code=000
  if [[ $code == 2?? ]]; then
    state="$(state_of "$scratch/body")"
    [[ $state == "$last" ]] || echo "publish-central.sh: $state (poll $i of $attempts)"
    last="$state"
    case "$state" in
      "$done_state" | PUBLISHED)
        if [[ $state == VALIDATED ]]; then
          echo "publish-central.sh: validated; publish it (or drop it) on https://central.sonatype.com/publishing/deployments"
        fi
        echo "$state"
        exit 0
        ;;
      FAILED)
        echo "publish-central.sh: the Portal failed deployment $deployment:" >&2
        if command -v jq >/dev/null 2>&1; then jq '.errors' "$scratch/body" >&2; else head -c 4000 "$scratch/body" >&2; echo >&2; fi
        echo "FAILED"
        exit 1
        ;;
      PENDING | VALIDATING | VALIDATED | PUBLISHING) ;;
      *) echo "publish-central.sh: unknown state '$state' in: $(head -c 500 "$scratch/body")" >&2 ;;
    esac
  else
    echo "publish-central.sh: status poll $i: HTTP $code: $(head -c 300 "$scratch/body" 2>/dev/null || true)" >&2
  fi
  ((i == attempts)) || sleep "$interval"
done
echo "publish-central.sh: deployment $deployment still ${last:-unknown} after $attempts polls; see https://central.sonatype.com/publishing/deployments" >&2
exit 1

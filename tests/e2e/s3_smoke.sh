#!/usr/bin/env bash
# The test S3 server (scripts/lib/swift.sh) speaks S3 and checks signatures: a bucket, a PUT, a
# GET with Range, a multipart upload of two parts, a listing, deletes, and a wrong secret and an
# unknown access key refused with 403. Runs with scripts/test's MEDIAGEN_TEST_S3_* variables.
set -euo pipefail
for v in MEDIAGEN_TEST_S3_ENDPOINT MEDIAGEN_TEST_S3_REGION MEDIAGEN_TEST_S3_ACCESS_KEY MEDIAGEN_TEST_S3_SECRET_KEY; do
  [ -n "${!v:-}" ] || { echo "FAIL: $v is not set (run through scripts/test)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
host="${MEDIAGEN_TEST_S3_ENDPOINT#http://}"
bucket="smoke-$$-$RANDOM"

fail() { echo "FAIL: $*" >&2; exit 1; }

# s3 SECRET CURL-ARGS... PATH: a signed request; the access key holds a colon, which curl's --user
# would split on, so the credentials ride in the URL, %-encoded. Prints the HTTP status.
s3() {
  local secret="$1"
  shift
  local path="${*: -1}" key
  key="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$MEDIAGEN_TEST_S3_ACCESS_KEY")"
  secret="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$secret")"
  curl -s --max-time 30 -o "$work/body" -w '%{http_code}' \
    --aws-sigv4 "aws:amz:$MEDIAGEN_TEST_S3_REGION:s3" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    "${@:1:$#-1}" "http://$key:$secret@$host$path"
}
ok() { s3 "$MEDIAGEN_TEST_S3_SECRET_KEY" "$@"; }
expect() {
  local want="$1" got="$2" what="$3"
  [ "$got" = "$want" ] || fail "$what: HTTP $got, expected $want: $(head -c 600 "$work/body")"
  echo "ok: $what ($got)"
}

expect 200 "$(ok -X PUT "/$bucket")" "create bucket"
printf '0123456789abcdefghij' >"$work/small"
expect 200 "$(ok -X PUT --data-binary @"$work/small" "/$bucket/dir/small.txt")" "put object"
expect 206 "$(ok -H 'Range: bytes=5-9' "/$bucket/dir/small.txt")" "get with Range"
[ "$(cat "$work/body")" = 56789 ] || fail "range body is '$(cat "$work/body")', expected 56789"

# Multipart: the first part must be at least 5 MiB (S3's rule, kept by s3api). "?uploads=" and
# not "?uploads": curl 7.88 signs the query as written, so it is written in the canonical form
# (every name with "=", names sorted, values %-encoded).
head -c $((5 * 1024 * 1024)) /dev/urandom >"$work/part1"
head -c 1000 /dev/urandom >"$work/part2"
expect 200 "$(ok -X POST "/$bucket/big.bin?uploads=")" "start multipart upload"
upload="$(sed -n 's:.*<UploadId>\(.*\)</UploadId>.*:\1:p' "$work/body")"
[ -n "$upload" ] || fail "no UploadId in $(cat "$work/body")"
etags=()
for n in 1 2; do
  curl_out="$(s3 "$MEDIAGEN_TEST_S3_SECRET_KEY" -D "$work/headers" -X PUT --data-binary @"$work/part$n" \
    "/$bucket/big.bin?partNumber=$n&uploadId=$upload")"
  expect 200 "$curl_out" "upload part $n"
  etags+=("$(tr -d '\r' <"$work/headers" | sed -n 's/^[Ee][Tt]ag: *//p')")
done
{
  echo "<CompleteMultipartUpload>"
  echo "<Part><PartNumber>1</PartNumber><ETag>${etags[0]}</ETag></Part>"
  echo "<Part><PartNumber>2</PartNumber><ETag>${etags[1]}</ETag></Part>"
  echo "</CompleteMultipartUpload>"
} >"$work/complete.xml"
expect 200 "$(ok -X POST --data-binary @"$work/complete.xml" "/$bucket/big.bin?uploadId=$upload")" \
  "complete multipart upload"
grep -q CompleteMultipartUploadResult "$work/body" || fail "completion answered $(cat "$work/body")"
expect 200 "$(ok "/$bucket/big.bin")" "get the assembled object"
cat "$work/part1" "$work/part2" | cmp - "$work/body" || fail "the assembled object differs from its parts"
expect 206 "$(ok -H "Range: bytes=$((5 * 1024 * 1024 - 2))-$((5 * 1024 * 1024 + 1))" "/$bucket/big.bin")" \
  "range across the two parts"
cat "$work/part1" "$work/part2" | tail -c +$((5 * 1024 * 1024 - 1)) | head -c 4 | cmp - "$work/body" ||
  fail "the range across parts differs"

expect 200 "$(ok "/$bucket?list-type=2&prefix=dir%2F")" "list with a prefix"
grep -q '<Key>dir/small.txt</Key>' "$work/body" || fail "listing lacks dir/small.txt: $(cat "$work/body")"

expect 403 "$(s3 "not-the-secret" "/$bucket/dir/small.txt")" "a wrong secret"
grep -q SignatureDoesNotMatch "$work/body" || fail "wrong secret answered $(cat "$work/body")"
expect 403 "$(s3 "not-the-secret" -X PUT --data-binary @"$work/small" "/$bucket/forged.txt")" \
  "a PUT with a wrong secret"
expect 403 "$(MEDIAGEN_TEST_S3_ACCESS_KEY=test:nobody ok "/$bucket/dir/small.txt")" "an unknown access key"
# tempauth does not tell an unknown key from a wrong secret.
grep -q SignatureDoesNotMatch "$work/body" || fail "unknown key answered $(cat "$work/body")"
expect 404 "$(ok "/$bucket/forged.txt")" "the forged PUT stored nothing"

expect 204 "$(ok -X DELETE "/$bucket/dir/small.txt")" "delete object"
expect 404 "$(ok "/$bucket/dir/small.txt")" "deleted object is gone"
expect 204 "$(ok -X DELETE "/$bucket/big.bin")" "delete the multipart object"
expect 204 "$(ok -X DELETE "/$bucket")" "delete the empty bucket"
echo "PASS"

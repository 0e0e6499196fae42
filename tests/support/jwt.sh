# Sourced by scripts that need a signing key and bearer tokens (interop tests, benchmarks), made
# with the openssl command: an Ed25519 and an RSA-2048 key, their JWKS, and signed JWTs.
#
#   source tests/support/jwt.sh
#   jwt_keys DIR                      # DIR/ed.pem, DIR/rs.pem, DIR/jwks.json (kids "ed", "rs")
#   jwt_token DIR ALG ISS AUD SCOPE   # prints a token (ALG: EdDSA or RS256), valid for an hour

jwt_b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }

jwt_keys() {
  local dir="$1" ed_x rs_n
  openssl genpkey -algorithm ed25519 -out "$dir/ed.pem" 2>/dev/null
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$dir/rs.pem" 2>/dev/null
  # The raw Ed25519 public key is the last 32 bytes of its DER SubjectPublicKeyInfo.
  ed_x="$(openssl pkey -in "$dir/ed.pem" -pubout -outform DER | tail -c 32 | jwt_b64url)"
  rs_n="$(openssl rsa -in "$dir/rs.pem" -noout -modulus | cut -d= -f2 | xxd -r -p | jwt_b64url)"
  printf '{"keys":[{"kty":"OKP","crv":"Ed25519","x":"%s","kid":"ed"},{"kty":"RSA","n":"%s","e":"AQAB","kid":"rs"}]}' \
    "$ed_x" "$rs_n" >"$dir/jwks.json"
}

jwt_token() {
  local dir="$1" alg="$2" iss="$3" aud="$4" scope="$5" kid input sig
  [[ "$alg" == EdDSA ]] && kid=ed || kid=rs
  input="$(printf '{"alg":"%s","typ":"at+jwt","kid":"%s"}' "$alg" "$kid" | jwt_b64url)"
  input="$input.$(printf '{"iss":"%s","aud":"%s","sub":"tester","scope":"%s","iat":%d,"exp":%d}' \
    "$iss" "$aud" "$scope" "$(date +%s)" $(($(date +%s) + 3600)) | jwt_b64url)"
  if [[ "$alg" == EdDSA ]]; then
    printf '%s' "$input" >"$dir/input"
    sig="$(openssl pkeyutl -sign -inkey "$dir/ed.pem" -rawin -in "$dir/input" | jwt_b64url)"
  else
    sig="$(printf '%s' "$input" | openssl dgst -sha256 -sign "$dir/rs.pem" | jwt_b64url)"
  fi
  printf '%s.%s\n' "$input" "$sig"
}

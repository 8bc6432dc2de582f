# SPDX-License-Identifier: MIT
# Guest half of the endpoint's abuse test: what a hostile or broken client
# does to ksnapd's HTTP server (httpabuse, each abuse from a loopback
# address of its own), while a collection runs.
#   baseline   a collection of 3000 snapshots without abuse: its lost count
#   flood      1000 connections opened from one address and held, sending
#              nothing: all closed by the server, the ones past the
#              per-address limit at once, the others no sooner than the
#              header deadline (10 s)
#   trickle    a request's headers a byte a second: closed by the server,
#              no sooner than the deadline, never answered
#   big        a 1 MiB header: 431 or closed
#   requests   bad methods and paths answered 405, 404, 400, 505; a scrape
#              during all of it answers
#   identity   the abused collection's rows == taken - lost; the loss with
#              and without abuse printed as figures (it depends on the
#              machine's speed, so it is not checked)
#   config     --web.config.file with a missing certificate, an unknown
#              key, a malformed hash: exit status 2, the error naming the
#              file, the key and its line
#   tls        TLS and basic authentication: the right credential 200 over
#              https, none or a wrong one 401, plain HTTP against the TLS
#              port closed without an answer, ksnapd still serving after it
TEST=web-abuse
. /guest/tests/lib.sh

PORT=10109
URL=http://127.0.0.1:$PORT
W=/tmp/webabuse
mkdir -p $W
# The header deadline and idle timeout, ksnapd(8): 10 s.  What is checked
# is a state: the server closed the connection.  The clients wait for it
# up to ABUSE_S, far past the deadline: how late after it the server's
# close comes depends on the machine's speed (a TCG guest on a busy host
# is slow), so it is not checked.  How early is: never before the
# deadline, which the clients count from before they connect (httpabuse).
DEADLINE_MS=10000
ABUSE_S=$((DEADLINE_MS / 1000 + WAIT_S))

ip link set lo up
check "the loopback interface is up with 127.0.0.1" 1 \
	"$(ip addr show lo | grep -c 'inet 127\.0\.0\.1/')"

stat_of() {
	grep 'STATS	' "$2" | tail -n 1 | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

# field NAME LINE: the number after NAME in httpabuse's line.
field() {
	echo "$2" | sed -n "s/.*$1 \([0-9]*\).*/\1/p"
}

# answer LINE: the status in httpabuse's "answer 'S' after ..." line.
answer() {
	echo "$1" | sed -n "s/.*answer '\([^']*\)'.*/\1/p"
}

if ! modprobe ksnap metrics=pgfault,nr_free_pages period_us=1000; then
	fail "module loads" "modprobe status 0" "failure"
	finish
	exit
fi
pass "module loads with metrics=pgfault,nr_free_pages period_us=1000"

# --- baseline ------------------------------------------------------------
ksnapd -o /out/base.tsv --web.listen-address 2> /out/base.err &
kpid=$!
wait_attached
wait_line /out/base.err "serving /metrics"
check "baseline: writing 1 to enable starts sampling" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_samples 3000
echo 0 > $KSNAP_SYS/enable
wait_line /out/base.tsv "STATS	"
kill $kpid
wait_pid $kpid $WAIT_S
check "baseline: ksnapd exits 0 on SIGTERM" 0 $?
btaken=$(stat_of ksnap_snapshots_taken /out/base.tsv)
blost=$(stat_of ksnap_snapshots_lost /out/base.tsv)
info "baseline: taken ${btaken:-?}, lost ${blost:-?}"
check "baseline: rows == STATS taken - lost" "$((${btaken:-0} - ${blost:-0}))" "$(rows /out/base.tsv)"

# --- the abuse, during a collection --------------------------------------
ksnapd -o /out/abuse.tsv --web.listen-address 2> /out/abuse.err &
kpid=$!
wait_attached
wait_line /out/abuse.err "serving /metrics"
check "writing 1 to enable starts sampling" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_rows /out/abuse.tsv 20
httpabuse hold $PORT 127.0.0.2 1000 $ABUSE_S > $W/hold 2>&1 &
hpid=$!
httpabuse trickle $PORT 127.0.0.3 $ABUSE_S > $W/trickle 2>&1 &
tpid=$!
httpabuse big $PORT 127.0.0.4 1048576 $ABUSE_S > $W/big 2>&1 &
bpid=$!

# request EXPECTED LINE...: bad requests from 127.0.0.5, each answered.
request() {
	_want=$1
	shift
	_got=$(httpabuse request $PORT 127.0.0.5 $ABUSE_S "$@" "Host: 127.0.0.1")
	check "'$(echo "$1" | cut -c 1-40)' is answered $_want ($_got)" "$_want" "$(answer "$_got")"
}
request 405 "DELETE /metrics HTTP/1.1"
request 405 "FOO / HTTP/1.1"
request 405 "POST /metrics HTTP/1.1" "Content-Length: 100000000"
request 404 "GET /../../etc/passwd HTTP/1.1"
request 404 "GET nopath HTTP/1.1"
request 505 "GET / HTTP/9.9"
request 400 "GET /$(head -c 40000 /dev/zero | tr '\0' a) HTTP/1.1"
garbage=$(httpabuse request $PORT 127.0.0.5 $ABUSE_S "garbage")
check_in "a line that is not HTTP is answered 400 or closed ($garbage)" "$(answer "$garbage")" 400 closed
wget -q -O /out/during.prom "$URL/metrics"
check "a scrape during the abuse answers (wget status)" 0 $?
check "the scrape has ksnap_collection_running 1" 1 \
	"$(grep -c '^ksnap_collection_running 1$' /out/during.prom)"

wait_pid $hpid $((ABUSE_S + WAIT_S))
check "flood: httpabuse hold exits 0 (every connection closed by the server)" 0 $?
hold=$(cat $W/hold)
info "flood: $hold"
made=$(field connected "$hold")
nref=$(field refused "$hold")
check "flood: 1000 connections made or refused" 1000 "$(( ${made:-0} + ${nref:-0} ))"
check "flood: none still open" 0 "$(field open "$hold")"
# Those within the per-address limit are held to the deadline: not closed
# before it.
ge "flood: the connections the server kept were held to the header deadline, not closed before it" \
	"$(field longest_held_ms "$hold")" $DEADLINE_MS

wait_pid $tpid $((ABUSE_S + WAIT_S))
check "trickle: httpabuse trickle exits 0 (closed by the server)" 0 $?
trickle=$(cat $W/trickle)
info "trickle: $trickle"
t_ms=$(echo "$trickle" | sed -n 's/closed after \([0-9]*\) ms.*/\1/p')
ge "trickle: not closed before the header deadline" "$t_ms" $DEADLINE_MS
check "trickle: never answered" closed "$(answer "$trickle")"

wait_pid $bpid $((ABUSE_S + WAIT_S))
check "big: httpabuse big exits 0 (answered or closed)" 0 $?
big=$(cat $W/big)
check_in "big: a 1 MiB header is answered 431 or closed ($big)" "$(answer "$big")" 431 closed

wget -q -O /out/after.prom "$URL/metrics"
check "a scrape after the abuse answers (wget status)" 0 $?
check "ksnapd is still running" 0 "$(kill -0 $kpid 2>/dev/null; echo $?)"
echo 0 > $KSNAP_SYS/enable
wait_line /out/abuse.tsv "STATS	"
kill $kpid
wait_pid $kpid $WAIT_S
check "ksnapd exits 0 on SIGTERM" 0 $?

# --- identity ------------------------------------------------------------
taken=$(stat_of ksnap_snapshots_taken /out/abuse.tsv)
lost=$(stat_of ksnap_snapshots_lost /out/abuse.tsv)
info "abused: taken ${taken:-?}, lost ${lost:-?}"
check "rows == STATS taken - lost" "$((${taken:-0} - ${lost:-0}))" "$(rows /out/abuse.tsv)"
# How much a collection loses depends on the machine's speed: a figure to
# read, not a check.
info "lost without abuse: ${blost:-?} of ${btaken:-?}; with abuse: ${lost:-?} of ${taken:-?}"
ksnap-verify /out/abuse.tsv > /out/abuse.verify 2>&1
check "ksnap-verify accepts the abused stream" 0 $?

# --- config --------------------------------------------------------------
cat > $W/server.crt <<'PEM'
-----BEGIN CERTIFICATE-----
MIIBfzCCASWgAwIBAgIUeskAQbygngWmEBeAKvfZuhEQqAIwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNjEwMDYzM1oYDzIxMjYxMTAy
MTAwNjMzWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAT1XqivRUe2+lpJvSiBOQ787Awkaz8eIq6HGdPyk0lGnDHkU/spay0E
FNr6NE1yK+9DmuZrO2ZgSsKQF1iZHclWo1MwUTAdBgNVHQ4EFgQU8tM87ex9VWpW
6eZas5rqPnsSZHMwHwYDVR0jBBgwFoAU8tM87ex9VWpW6eZas5rqPnsSZHMwDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiAbx2lUaN2cmz8OpYNziAi4
eXHI1lP7eQjHnnYHnL0XtwIhAOKgvlKEel6NFJinEAirzSnvFuaymX/9tr7Nc4Ga
5gYY
-----END CERTIFICATE-----
PEM
cat > $W/server.key <<'PEM'
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWVHexp8VtpJ6kHzK
NiC27X0/jrLPJn00vj6Yldv9YlihRANCAAT1XqivRUe2+lpJvSiBOQ787Awkaz8e
Iq6HGdPyk0lGnDHkU/spay0EFNr6NE1yK+9DmuZrO2ZgSsKQF1iZHclW
-----END PRIVATE KEY-----
PEM
# bcrypt, cost 4, of "secret"
HASH='$2y$04$nQJW.f1mBkZKBxV260IBt.mphVM/hmLG7i7xFPrk8AHxeoQL2xznG'

# refused NAME YAML WANT: ksnapd with the config YAML exits 2 at once,
# its error has WANT (the file, line, key).
refused() {
	printf '%b' "$2" > $W/$1.yml
	ksnapd -o /out/refused.tsv --web.listen-address --web.config.file $W/$1.yml 2> $W/$1.err
	check "config: $1: ksnapd exits 2" 2 $?
	check "config: $1: the error names '$3'" 1 "$(grep -c -F "$W/$1.yml:$3" $W/$1.err)"
}
refused nocert 'tls_server_config:\n  cert_file: none.crt\n  key_file: server.key\n' \
	'2: tls_server_config.cert_file: '
refused unknown "basic_auth_users:\n  u: $HASH\nbasic_auth_user:\n  v: $HASH\n" \
	'3: basic_auth_user: unknown key'
refused badhash 'basic_auth_users:\n  prometheus: secret\n' \
	'2: basic_auth_users.prometheus: not a bcrypt hash'

# --- tls -----------------------------------------------------------------
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: %s\n' "$HASH" > $W/web.yml
ksnapd -o /out/tls.tsv --web.listen-address --web.config.file $W/web.yml 2> /out/tls.err &
kpid=$!
wait_attached
wait_line /out/tls.err "serving /metrics"
check "tls: ksnapd says it serves TLS with basic authentication" 1 \
	"$(grep -c 'TLS, basic authentication' /out/tls.err)"
HTTPS=https://127.0.0.1:$PORT/metrics
# base64 of prometheus:secret and prometheus:wrong
RIGHT=cHJvbWV0aGV1czpzZWNyZXQ=
WRONG=cHJvbWV0aGV1czp3cm9uZw==
wget -q --no-check-certificate --header "Authorization: Basic $RIGHT" -O $W/tls.prom $HTTPS
check "tls: the right credential gets /metrics over https (wget status)" 0 $?
check "tls: the answer is the exposition" 1 "$(grep -c '^ksnap_build_info{' $W/tls.prom)"
wget --no-check-certificate -O $W/none $HTTPS > $W/none.err 2>&1
check "tls: no credential is 401" 1 "$(grep -c '401' $W/none.err)"
wget --no-check-certificate --header "Authorization: Basic $WRONG" -O $W/wrong $HTTPS > $W/wrong.err 2>&1
check "tls: a wrong password is 401" 1 "$(grep -c '401' $W/wrong.err)"
plain=$(httpabuse request $PORT 127.0.0.5 $ABUSE_S "GET /metrics HTTP/1.1" "Host: 127.0.0.1")
check_in "tls: plain HTTP against the TLS port gets no HTTP answer ($plain)" "$(answer "$plain")" closed other
check "tls: ksnapd is still running" 0 "$(kill -0 $kpid 2>/dev/null; echo $?)"
wget -q --no-check-certificate --header "Authorization: Basic $RIGHT" -O $W/tls2.prom $HTTPS
check "tls: it still serves the right credential (wget status)" 0 $?
kill $kpid
wait_pid $kpid $WAIT_S
check "tls: ksnapd exits 0 on SIGTERM" 0 $?
finish

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# guest-lib.sh - helpers shared by the scripts that run inside the rxe VMs (guest-e2e.sh,
# guest-mesh-*.sh): TAP-like ok/not ok counting, retries, scraping /metrics and looking
# values up in the text exposition. Not run on its own: vm-e2e.sh and vm-mesh.sh prepend
# it to the guest script (a guest receives one script file and nothing else). The
# script defines URL (the default scrape target) and may set NORM (default below).

NORM=${NORM:-/tmp/scrape.norm}

pass=0
fail=0
ok()    { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }
note()  { echo "# $*"; }
check() {               # check DESCRIPTION COMMAND...
    local desc=$1
    shift
    if "$@"; then ok "$desc"; else notok "$desc"; fi
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }'; }
retry() {               # retry N CMD...: the client may start before the server listens
    local n=$1 i=0
    shift
    until "$@"; do
        i=$((i + 1))
        [ $i -ge "$n" ] && return 1
        sleep 0.5
    done
}

############################################################################
# Scraping and parsing the text exposition format
############################################################################
scrape() {              # scrape FILE [URL]: GET /metrics (or URL, http://HOST:PORT/PATH) into FILE
    local url=${2:-$URL} hp raw=$1.raw
    rm -f "$1"
    if command -v wget >/dev/null 2>&1; then
        # (busybox 1.35's static wget segfaults with -T: time it out from outside)
        timeout 15 wget -q -O "$1" "$url" 2>/dev/null
        return
    fi
    # fallback without wget: HTTP/1.0 over bash's /dev/tcp
    hp=${url#http://}
    hp=${hp%%/*}
    {
        exec 3<>"/dev/tcp/${hp%:*}/${hp#*:}" || return 1
        printf 'GET /%s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "${url#http://*/}" "$hp" >&3
        timeout 10 cat <&3 > "$raw"
        exec 3<&-
    } 2>/dev/null || return 1
    head -1 "$raw" | grep -q ' 200 ' || return 1
    awk 'body { print; next } /^\r?$/ { body = 1 }' "$raw" > "$1"
    rm -f "$raw"
}

# Normalise samples to "name{labels sorted by name}<TAB>value", so that lookups do not
# depend on the exporter's label order. Comments and blank lines are dropped; label
# values may contain escaped quotes, commas and braces.
normalize() {
    awk '
    function sort_join(a, n,    i, j, t, s) {
        for (i = 2; i <= n; i++) {
            t = a[i]
            for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
            a[j + 1] = t
        }
        s = ""
        for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") a[i]
        return s
    }
    /^[ \t]*(#|$)/ { next }
    {
        line = $0
        sub(/^[ \t]+/, "", line)
        match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)
        name = substr(line, 1, RLENGTH)
        line = substr(line, RLENGTH + 1)
        sub(/^[ \t]+/, "", line)
        if (substr(line, 1, 1) != "{") {              # no labels
            rest = line
            labels = ""
        } else {
            n = 0; cur = ""; inq = 0; esc = 0
            for (i = 2; i <= length(line); i++) {
                c = substr(line, i, 1)
                if (inq) {
                    cur = cur c
                    if (esc) esc = 0
                    else if (c == "\\") esc = 1
                    else if (c == "\"") inq = 0
                } else if (c == "\"") { cur = cur c; inq = 1 }
                else if (c == "," || c == "}") {
                    gsub(/^[ \t]+|[ \t]+$/, "", cur)
                    if (cur != "") a[++n] = cur
                    cur = ""
                    if (c == "}") break
                } else if (c != " " && c != "\t") cur = cur c
            }
            rest = substr(line, i + 1)
            labels = sort_join(a, n)
        }
        sub(/^[ \t]+/, "", rest)
        split(rest, v, /[ \t]+/)
        printf "%s{%s}\t%s\n", name, labels, v[1]
    }'
}

# value NAME LABELS: the sample's value in $NORM ("" if absent); LABELS like device="rxe0",port="1"
value() {
    local key
    key=$(printf '%s{%s} 0\n' "$1" "$2" | normalize | cut -f1)
    awk -F'\t' -v k="$key" '$1 == k { print $2; found = 1; exit } END { exit !found }' "$NORM"
}
num_eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }'; }
num_gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 > b + 0) }'; }
num_ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }'; }
check_value() {         # check_value NAME LABELS EXPECTED
    local got
    got=$(value "$1" "$2")
    if num_eq "$got" "$3"; then ok "$1{$2} = $3"
    else notok "$1{$2} = $3 (got '${got:-<absent>}')"; fi
}

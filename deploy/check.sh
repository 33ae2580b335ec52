#!/usr/bin/env bash
# Check every file in deploy/ with the real tool, then prove each check fails on a broken
# copy (a check that passes anything checks nothing). Called from .ci/run; installs the
# tools it lacks from Debian's packages. Usage: deploy/check.sh [path to `steady`]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
steady_bin="${1:-$here/../.venv/bin/steady}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

install_tools() {
  local missing=()
  command -v systemd-analyze >/dev/null || missing+=(systemd)
  command -v nginx >/dev/null || missing+=(nginx)
  command -v caddy >/dev/null || missing+=(caddy)
  command -v promtool >/dev/null || missing+=(prometheus)
  command -v openssl >/dev/null || missing+=(openssl)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]} (Debian packages)"
    apt-get update -qq
    # policy-rc.d: install the programs only, never start their services here.
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    rm -f /usr/sbin/policy-rc.d
  fi
}

# systemd-analyze verify only warns (exit 0) about a misspelled key or a bad value, so
# any output at all fails the check. ExecStart must name a program that exists: the
# unit's /opt/steady/bin/steady becomes this checkout's.
check_systemd() {
  local dir="$work/systemd" output
  mkdir -p "$dir"
  sed "s|^ExecStart=/opt/steady/bin/steady |ExecStart=$(realpath "$steady_bin") |" "$1" >"$dir/steady.service"
  grep -q "^ExecStart=$(realpath "$steady_bin") run$" "$dir/steady.service" || {
    echo "$1: ExecStart is not /opt/steady/bin/steady run" >&2; return 1; }
  output="$(systemd-analyze verify "$dir/steady.service" 2>&1)" || { echo "$output" >&2; return 1; }
  [ -z "$output" ] || { echo "$output" >&2; return 1; }
}

# nginx -t on a whole configuration around the site file, its certificate paths pointed
# at a throwaway self-signed certificate and its log at a scratch folder.
check_nginx() {
  local dir="$work/nginx"
  mkdir -p "$dir"
  [ -f "$dir/cert.pem" ] || openssl req -x509 -newkey rsa:2048 -nodes -days 1 \
    -subj /CN=bot.example.org -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
  sed -e "s|/etc/letsencrypt/live/bot.example.org/fullchain.pem|$dir/cert.pem|" \
      -e "s|/etc/letsencrypt/live/bot.example.org/privkey.pem|$dir/key.pem|" \
      -e "s|/var/log/nginx/|$dir/|" "$1" >"$dir/site.conf"
  printf 'pid %s/nginx.pid;\nerror_log %s/error.log;\nevents {}\nhttp {\n    include %s/site.conf;\n}\n' \
    "$dir" "$dir" "$dir" >"$dir/nginx.conf"
  nginx -t -q -c "$dir/nginx.conf" -p "$dir" -e "$dir/error.log"
}

check_caddy() {
  XDG_DATA_HOME="$work/caddy" XDG_CONFIG_HOME="$work/caddy" STEADY_BOT_ID=123456789 \
    caddy validate --config "$1" --adapter caddyfile >"$work/caddy.log" 2>&1 \
    || { cat "$work/caddy.log" >&2; return 1; }
}

# promtool check rules, then the rules' own unit tests (which name the rule file
# beside them: both are copied into one folder).
check_prometheus() {
  local dir="$work/prometheus"
  mkdir -p "$dir"
  cp "$1" "$dir/steady-rules.yml"
  cp "$2" "$dir/steady-rules.test.yml"
  (cd "$dir" && promtool check rules steady-rules.yml >/dev/null \
    && promtool test rules steady-rules.test.yml >/dev/null)
}

check_grafana() {
  python3 -m json.tool "$1" >/dev/null
}

check_all() {  # the files in $1
  check_systemd "$1/systemd/steady.service"
  check_nginx "$1/nginx/steady.conf"
  check_caddy "$1/caddy/Caddyfile"
  check_prometheus "$1/prometheus/steady-rules.yml" "$1/prometheus/steady-rules.test.yml"
  check_grafana "$1/grafana/steady-dashboard.json"
}

# Each check must refuse a copy with one mistake in it.
must_fail() {  # description, check function, its arguments...
  local description="$1"; shift
  if "$@" 2>/dev/null; then
    echo "FAIL: the check passed a broken file ($description)" >&2
    exit 1
  fi
  echo "ok    refused: $description"
}

prove_checks_fail() {
  local broken="$work/broken"
  mkdir -p "$broken"
  sed 's/^ProtectSystem=strict/ProtectSystem=strikt/' "$here/systemd/steady.service" >"$broken/a.service"
  must_fail "systemd unit with ProtectSystem=strikt" check_systemd "$broken/a.service"
  sed 's/^NoNewPrivileges=yes/NoNewPrivilege=yes/' "$here/systemd/steady.service" >"$broken/b.service"
  must_fail "systemd unit with a misspelled key" check_systemd "$broken/b.service"
  sed 's/proxy_pass /proxy_pas /' "$here/nginx/steady.conf" >"$broken/steady.conf"
  must_fail "nginx site with an unknown directive" check_nginx "$broken/steady.conf"
  sed 's/reverse_proxy /reverse_proxi /' "$here/caddy/Caddyfile" >"$broken/Caddyfile"
  must_fail "Caddyfile with an unknown directive" check_caddy "$broken/Caddyfile"
  sed 's/> 300/>> 300/' "$here/prometheus/steady-rules.yml" >"$broken/rules.yml"
  must_fail "alert rule that does not parse" \
    check_prometheus "$broken/rules.yml" "$here/prometheus/steady-rules.test.yml"
  sed 's/> 600/> 6000/' "$here/prometheus/steady-rules.yml" >"$broken/late.yml"
  must_fail "alert rule that parses but fires too late for its tests" \
    check_prometheus "$broken/late.yml" "$here/prometheus/steady-rules.test.yml"
  head -c 200 "$here/grafana/steady-dashboard.json" >"$broken/dashboard.json"
  must_fail "dashboard cut short" check_grafana "$broken/dashboard.json"
}

install_tools
check_all "$here"
echo "ok    deploy/: systemd-analyze verify, nginx -t, caddy validate, promtool check and test rules, dashboard JSON"
prove_checks_fail

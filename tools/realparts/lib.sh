# Shell helpers shared by the tools that install, start and stop the real services (Swift, Zaqar,
# the os-collect-config agent) on loopback. Source it; it defines functions and these variables:
#   RP_ROOT   the repository root
#   RP_STATE  where running services keep config, data, logs, pids and env files
#             ($THERMIK_STATE_DIR, default $RP_ROOT/.state)
# Every venv lives at $RP_ROOT/.venv-<name> and is rebuilt only when its lock file changes.

RP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RP_STATE=${THERMIK_STATE_DIR:-$RP_ROOT/.state}
RP_DIR=$RP_ROOT/tools/realparts
RP_TAG=${RP_TAG:-$(basename "$0" .sh)}
RP_T0=$EPOCHREALTIME
# uv never downloads an interpreter: the venvs use the machine's Python.
export UV_PYTHON_DOWNLOADS=never

rp_log() {
    local ms=$(( (${EPOCHREALTIME/./} - ${RP_T0/./}) / 1000 ))
    printf '[%s %d.%03ds] %s\n' "$RP_TAG" $((ms / 1000)) $((ms % 1000)) "$*" >&2
}

rp_die() {
    rp_log "ERROR: $*"
    exit 1
}

# rp_quiet LOG CMD...: run CMD with its output in LOG, shown only when it fails.
rp_quiet() {
    local log=$1
    shift
    if ! "$@" > "$log" 2>&1; then
        cat "$log" >&2
        rp_die "failed: $* (log: $log)"
    fi
}

# rp_install LOG CMD...: run an installer (pip or uv) with its output in LOG, showing one short
# line per package it collects (rewritten in place on a terminal) and its summaries; LOG is
# shown when it fails.
rp_install() {
    local log=$1
    shift
    if PYTHONUNBUFFERED=1 "$@" 2>&1 | rp_progress "$log"; [ "${PIPESTATUS[0]}" != 0 ]; then
        cat "$log" >&2
        rp_die "failed: $* (log: $log)"
    fi
}

# rp_progress LOG: copy an installer's output (stdin) to LOG and report its progress on stderr.
rp_progress() {
    local log=$1 line n=0 open=0
    : > "$log"
    while IFS= read -r line; do
        printf '%s\n' "$line" >> "$log"
        case $line in
            Collecting\ *)
                n=$((n + 1))
                line=${line#Collecting }
                if [ -t 2 ]; then
                    printf '\r\033[K[%s] collecting %d: %s' "$RP_TAG" "$n" "${line%% *}" >&2
                    open=1
                else
                    rp_log "collecting $n: ${line%% *}"
                fi
                ;;
            "Installing collected packages: "* | Resolved\ * | Prepared\ * | Installed\ *)
                [ "$open" = 1 ] && printf '\n' >&2
                open=0
                case $line in
                    Installing\ *) rp_log "installing $(rp_count "${line#*: }")" ;;
                    *) rp_log "${line,}" ;;
                esac
                ;;
        esac
    done
    [ "$open" = 1 ] && printf '\n' >&2
    return 0
}

# rp_count "a, b, c": say how many packages a comma-separated list names.
rp_count() {
    local names
    IFS=, read -ra names <<< "$1"
    if [ "${#names[@]}" = 1 ]; then echo "1 package"; else echo "${#names[@]} packages"; fi
}

rp_python() {
    "${PYTHON:-python3}" -c 'import sys; print(sys.executable)'
}

# rp_uv: print the path of a pinned uv, installing it into .venv-uv on first use (a plain
# --target install: uv is one binary and needs no venv of its own). Several tools start at
# once on a fresh checkout (run-tests.sh brings the cloud up while services-up.sh runs), and
# each would install it into the same directory: the first installs it under a lock, the
# others wait and find it installed.
rp_uv() {
    local dir=$RP_ROOT/.venv-uv lock=$RP_DIR/requirements/uv.txt
    if ! cmp -s "$lock" "$dir/.lock" 2> /dev/null; then
        mkdir -p "$RP_STATE"
        (
            flock 9
            cmp -s "$lock" "$dir/.lock" 2> /dev/null && exit 0
            rm -rf "$dir"
            rp_log "installing uv into .venv-uv (about 17 MB to download, 38 MB on disk)"
            rp_install "$RP_STATE/install-uv.log" "$(rp_python)" -m pip install \
                --progress-bar off --require-hashes --target "$dir" -r "$lock"
            cp "$lock" "$dir/.lock"
        ) 9> "$RP_STATE/install-uv.lock" || rp_die "uv did not install (see above)"
    fi
    echo "$dir/bin/uv"
}

# rp_venv NAME [SIZE]: make sure .venv-NAME matches requirements/NAME.txt; print its path.
# SIZE says how much the install downloads and takes on disk (measured, for the user).
rp_venv() {
    local name=$1 size=${2:+, $2}
    local venv=$RP_ROOT/.venv-$name lock=$RP_DIR/requirements/$name.txt
    local log=$RP_STATE/install-$name.log uv
    if cmp -s "$lock" "$venv/.lock" 2> /dev/null; then
        rp_log "reusing .venv-$name (installed by an earlier run)"
    else
        rp_log "installing .venv-$name: $(grep -c '^[A-Za-z0-9].*==' "$lock") packages from" \
            "$(basename "$lock")$size"
        mkdir -p "$RP_STATE"
        uv=$(rp_uv)
        rm -rf "$venv"
        rp_quiet "$log" "$uv" venv -q --python "$(rp_python)" "$venv"
        VIRTUAL_ENV=$venv rp_install "$log" "$uv" pip install --require-hashes -r "$lock"
        cp "$lock" "$venv/.lock"
        rp_log ".venv-$name ready"
    fi
    echo "$venv"
}

# rp_free_ports N: print N distinct loopback TCP ports that are free right now.
rp_free_ports() {
    "$(rp_python)" - "$1" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# rp_random_key: print a fresh random token usable in config files and URLs.
rp_random_key() {
    od -An -tx1 -N16 /dev/urandom | tr -d ' \n'
}

# rp_render TEMPLATE OUT KEY=VALUE...: copy TEMPLATE to OUT replacing every @KEY@ by VALUE.
rp_render() {
    local template=$1 out=$2
    shift 2
    local args=() pair
    for pair in "$@"; do
        args+=(-e "s|@${pair%%=*}@|${pair#*=}|g")
    done
    sed "${args[@]}" "$template" > "$out"
    if grep -q '@[A-Z_]*@' "$out"; then
        rp_die "unfilled placeholder in $out: $(grep -o '@[A-Z_]*@' "$out" | head -1)"
    fi
}

# rp_alive PIDFILE MARK: the pid in PIDFILE runs (a zombie does not count: PID 1 here may reap
# late) and its command line contains MARK (so a recycled pid is never taken for ours).
rp_alive() {
    local pid stat
    pid=$(cat "$1" 2>/dev/null) || return 1
    stat=$(ps -o stat= -p "$pid" 2>/dev/null) || return 1
    [ -n "$stat" ] && [ "${stat#Z}" = "$stat" ] || return 1
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# rp_spawn PIDFILE LOG CMD...: start CMD detached from our session, remember its pid.
rp_spawn() {
    local pidfile=$1 log=$2
    shift 2
    setsid "$@" > "$log" 2>&1 < /dev/null &
    echo $! > "$pidfile"
}

# rp_stop PIDFILE MARK: stop the process (TERM, then KILL after 5 s) and remove PIDFILE.
rp_stop() {
    local pidfile=$1 mark=$2 pid i
    if rp_alive "$pidfile" "$mark"; then
        pid=$(cat "$pidfile")
        kill -TERM "$pid" 2>/dev/null || true
        for i in $(seq 50); do
            rp_alive "$pidfile" "$mark" || break
            sleep 0.1
        done
        if rp_alive "$pidfile" "$mark"; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidfile"
}

# rp_wait_http URL CODE SECONDS PIDFILE MARK [CURL_ARGS...]: wait until URL answers CODE; give up
# early when the server process died.
rp_wait_http() {
    local url=$1 want=$2 seconds=$3 pidfile=$4 mark=$5 code i
    shift 5
    for i in $(seq $((seconds * 10))); do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$@" "$url" || true)
        [ "$code" = "$want" ] && return 0
        rp_alive "$pidfile" "$mark" || return 1
        sleep 0.1
    done
    return 1
}

# rp_uwsgi_dir: the venv of the one uWSGI that serves every API of the real services (with
# --virtualenv), kept per lock in ~/.cache/thermik for every work tree: uv does not cache the
# wheel it builds from uWSGI's source distribution, and a build takes one to two minutes of CPU.
rp_uwsgi_dir() {
    local lock=$RP_DIR/requirements/uwsgi.txt
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/thermik/venv-uwsgi-$(sha256sum "$lock" | cut -c1-16)"
}

# rp_build_uwsgi: build that uWSGI unless it is there.
rp_build_uwsgi() {
    local dir uv log=$RP_STATE/install-uwsgi.log
    dir=$(rp_uwsgi_dir)
    [ -x "$dir/bin/uwsgi" ] && return
    rp_log "building uWSGI into $dir"
    uv=$(rp_uv)
    rm -rf "$dir.$$"
    mkdir -p "$(dirname "$dir")" "$RP_STATE"
    rp_quiet "$log" "$uv" venv -q --python "$(rp_python)" "$dir.$$"
    VIRTUAL_ENV=$dir.$$ rp_quiet "$log" "$uv" pip install -q --require-hashes \
        -r "$RP_DIR/requirements/uwsgi.txt"
    # Another work tree may have finished the same build first.
    mv -T "$dir.$$" "$dir" 2> /dev/null || rm -rf "$dir.$$"
    rp_log "uWSGI ready"
}

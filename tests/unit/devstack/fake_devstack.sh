#!/bin/bash
# Stand-ins for the devstack functions the Thermik plugin calls, for tests/unit/devstack.
# Files are really written (iniset, write_uwsgi_config, configure_keystone_authtoken_middleware
# write what devstack's write); everything that would act on the host or the cloud is recorded,
# one call per line of $HARNESS_LOG (fields separated by the unit separator, \x1f).
# Needs HARNESS_ROOT, HARNESS_LOG and HARNESS_BIN.

function record {
    local IFS=$'\x1f'
    printf '%s\n' "$*" >> "$HARNESS_LOG"
}

# crudini's semantics: the file and the section are created when missing, an option set again
# is replaced where it is, values are written as given.
function iniset {
    [[ $1 == -sudo ]] && shift
    local file=$1 tmp
    [[ -f $file ]] || : > "$file"
    tmp=$(mktemp)
    S=$2 O=$3 V=$4 awk '
        function header(line) { sub(/^\[/, "", line); sub(/\][ \t]*$/, "", line); return line }
        function key(line) { sub(/[ \t]*=.*/, "", line); sub(/^[ \t]*/, "", line); return line }
        function flush() { if (inside && !done) { print ENVIRON["O"] " = " ENVIRON["V"]; done = 1 } }
        /^\[.*\][ \t]*$/ { flush(); inside = (header($0) == ENVIRON["S"]); seen = seen || inside
                           print; next }
        inside && !done && /=/ && !/^[ \t]*[#;]/ && key($0) == ENVIRON["O"] {
            print ENVIRON["O"] " = " ENVIRON["V"]; done = 1; next }
        { print }
        END { flush(); if (!seen) { if (NR) print ""; print "[" ENVIRON["S"] "]"
                                     print ENVIRON["O"] " = " ENVIRON["V"] } }
    ' "$file" > "$tmp"
    mv "$tmp" "$file"
}

function iniget {
    [[ -f $1 ]] || return 0
    S=$2 O=$3 awk '
        /^\[.*\][ \t]*$/ { line = $0; sub(/^\[/, "", line); sub(/\][ \t]*$/, "", line)
                           inside = (line == ENVIRON["S"]); next }
        inside && /=/ && !/^[ \t]*[#;]/ {
            k = $0; sub(/[ \t]*=.*/, "", k); sub(/^[ \t]*/, "", k)
            if (k == ENVIRON["O"]) { v = $0; sub(/^[^=]*=[ \t]*/, "", v); print v; exit } }
    ' "$1"
}

function die {
    record die "$@"
    echo "die: $*" >&2
    exit 1
}

function echo_summary {
    echo "summary: $*"
}

function deprecated {
    record deprecated "$@"
}

# devstack's semantics: a name in ENABLED_SERVICES, an is_<name>_enabled function, or one of the
# catch-all names (nova for n-*, swift for s-*...).
function is_service_enabled {
    local service
    for service in "$@"; do
        [[ ,${ENABLED_SERVICES}, =~ ,${service}, ]] && return 0
        if type "is_${service}_enabled" > /dev/null 2>&1 && "is_${service}_enabled"; then
            return 0
        fi
        case $service in
            nova) [[ ,${ENABLED_SERVICES} =~ ,n- ]] && return 0 ;;
            glance) [[ ,${ENABLED_SERVICES} =~ ,g- ]] && return 0 ;;
            neutron) [[ ,${ENABLED_SERVICES} =~ ,q- ]] && return 0 ;;
            swift) [[ ,${ENABLED_SERVICES} =~ ,s- ]] && return 0 ;;
        esac
    done
    return 1
}

# As devstack's: a service disabled in local.conf (DISABLED_SERVICES) stays disabled.
function enable_service {
    local service
    for service in "$@"; do
        [[ ,${DISABLED_SERVICES:-}, =~ ,${service}, ]] && continue
        is_service_enabled "$service" || ENABLED_SERVICES+=",$service"
    done
}

function database_connection_url {
    case $DATABASE_TYPE in
        postgresql) echo "$BASE_SQL_CONN/$1?client_encoding=utf8" ;;
        *) echo "$BASE_SQL_CONN/$1?charset=utf8" ;;
    esac
}

function get_python_exec_prefix {
    echo "$HARNESS_BIN"
}

function iniset_rpc_backend {
    record iniset_rpc_backend "$@"
    if is_service_enabled rabbit || [[ -n "$RABBIT_HOST" && -n "$RABBIT_PASSWORD" ]]; then
        iniset "$2" "${3:-DEFAULT}" transport_url \
            "rabbit://$RABBIT_USERID:$RABBIT_PASSWORD@$RABBIT_HOST:5672/$4"
    fi
}

function configure_keystone_authtoken_middleware {
    record configure_keystone_authtoken_middleware "$@"
    local conf=$1 user=$2 section=${3:-keystone_authtoken}
    iniset "$conf" "$section" auth_type password
    iniset "$conf" "$section" interface public
    iniset "$conf" "$section" auth_url "$KEYSTONE_SERVICE_URI"
    iniset "$conf" "$section" username "$user"
    iniset "$conf" "$section" password "$SERVICE_PASSWORD"
    iniset "$conf" "$section" user_domain_name "$SERVICE_DOMAIN_NAME"
    iniset "$conf" "$section" project_name "$SERVICE_PROJECT_NAME"
    iniset "$conf" "$section" project_domain_name "$SERVICE_DOMAIN_NAME"
    iniset "$conf" "$section" www_authenticate_uri "$KEYSTONE_SERVICE_URI"
    iniset "$conf" "$section" cafile "$SSL_BUNDLE_FILE"
    iniset "$conf" "$section" memcached_servers "$MEMCACHE_SERVERS"
}

# The options devstack's write_uwsgi_config writes for an application behind Apache.
function write_uwsgi_config {
    record write_uwsgi_config "$@"
    local conf=$1 wsgi=$2 url=$3 http=$4 name=${5:-$(basename "$2")}
    rm -f "$conf"
    iniset "$conf" uwsgi module "$wsgi"
    iniset "$conf" uwsgi processes "$API_WORKERS"
    iniset "$conf" uwsgi master true
    iniset "$conf" uwsgi die-on-term true
    iniset "$conf" uwsgi enable-threads true
    iniset "$conf" uwsgi plugins http,python3
    iniset "$conf" uwsgi lazy-apps true
    if [[ -n "$http" ]]; then
        iniset "$conf" uwsgi http "$http"
    else
        iniset "$conf" uwsgi socket "$HARNESS_ROOT/run/uwsgi/$name.socket"
        record apache_proxy "$url" "$name"
    fi
}

# sudo runs the command, as long as every absolute path it names is in the harness's tree.
function sudo {
    record sudo "$@"
    local arg
    for arg in "$@"; do
        if [[ $arg == /* && $arg != "$HARNESS_ROOT"/* ]]; then
            echo "sudo outside the harness: $arg" >&2
            return 1
        fi
    done
    "$@"
}

function _recorded {
    local name
    for name in "$@"; do
        eval "function $name { record $name \"\$@\"; }"
    done
}
_recorded setup_develop pip_install recreate_database run_process stop_process \
    remove_uwsgi_config create_service_user get_or_add_user_project_role

function get_or_create_service {
    record get_or_create_service "$@"
    echo "service-$2"
}

function get_or_create_endpoint {
    record get_or_create_endpoint "$@"
    echo "endpoint-$1"
}

function get_or_create_role {
    record get_or_create_role "$@"
    echo "role-$1"
}

function openstack {
    record openstack "$@"
    # "show" finds nothing, so that the plugin creates what it needs.
    [[ " $* " != *" show "* ]]
}

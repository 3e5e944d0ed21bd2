#!/bin/bash
# devstack plugin entry point for Thermik (enable_plugin thermik <repo>).
# devstack sources this file at each phase; the work is in lib/thermik.

source $DEST/thermik/devstack/lib/thermik

if [[ "$1" == "stack" && "$2" == "install" ]]; then
    install_thermik
elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
    configure_thermik
    create_thermik_accounts
elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
    init_thermik
    start_thermik
fi

if [[ "$1" == "unstack" ]]; then
    stop_thermik
fi

if [[ "$1" == "clean" ]]; then
    cleanup_thermik
fi

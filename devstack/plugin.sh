#!/bin/bash
# devstack plugin entry point for Thermik (enable_plugin thermik <repo>).
# devstack sources this file at each phase; the work is in lib/thermik.

source "$DEST/thermik/devstack/lib/thermik"

if is_service_enabled thermik-api thermik-engine; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing Thermik"
        install_thermik
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring Thermik"
        cleanup_thermik
        configure_thermik
        create_thermik_accounts
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Initializing and starting Thermik"
        init_thermik
        start_thermik
    elif [[ "$1" == "stack" && "$2" == "test-config" ]]; then
        if is_service_enabled tempest; then
            echo_summary "Configuring Tempest for Thermik (heat-tempest-plugin)"
            configure_tempest_for_thermik
        fi
    fi

    if [[ "$1" == "unstack" ]]; then
        stop_thermik
    fi

    if [[ "$1" == "clean" ]]; then
        cleanup_thermik
    fi
fi

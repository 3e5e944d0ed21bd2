"""Print the RPC queues of the loopback cloud that nobody consumes yet; exit 1 if there are any.

Run with .venv-nova's Python by tools/cloud-up.sh: ``queues.py VHOST QUEUE...``. A service that
consumes its queue has started and registered itself. One AMQP connection with a passive
declare per queue, where each ``rabbitmqctl list_queues`` starts an Erlang VM (seconds of CPU
on a busy machine).
"""

from __future__ import annotations

import sys

import amqp  # type: ignore[import-not-found]


def consumers(connection: amqp.Connection, queue: str) -> int:
    channel = connection.channel()
    try:
        return int(channel.queue_declare(queue=queue, passive=True).consumer_count)
    except amqp.exceptions.NotFound:  # not declared yet (the declare closed the channel)
        return 0
    finally:
        if channel.is_open:
            channel.close()


def main(argv: list[str]) -> None:
    connection = amqp.Connection(
        host="127.0.0.1:5672", userid="guest", password="guest", virtual_host=argv[1]
    )
    connection.connect()
    try:
        idle = [queue for queue in argv[2:] if consumers(connection, queue) == 0]
    finally:
        connection.close()
    print(" ".join(idle))
    sys.exit(1 if idle else 0)


if __name__ == "__main__":
    main(sys.argv)

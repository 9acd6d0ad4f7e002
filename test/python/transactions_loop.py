"""A consume-transform-produce loop with transactions through the gateway (issue 28).

    python transactions_loop.py BOOTSTRAP INPUT OUTPUT GROUP TRANSACTIONAL_ID KILL_IN

Reads INPUT in GROUP (read_committed, no auto commit), and for each batch of up to 20 records
writes "t-<value>" (same key) to OUTPUT and the group's positions in one transaction. With
KILL_IN > 0, the KILL_IN-th transaction stops once its records are written (flushed) but before
its commit: it prints {"event": "kill-me"} and waits to be killed (SIGKILL). With KILL_IN = 0
it runs until it has consumed every assigned partition to its end, then prints
{"event": "done", "transactions": n}. Prints {"event": "error", "error": ...} on any error.
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer

bootstrap, source, target, group, transactional_id, kill_in = sys.argv[1:7]
kill_in = int(kill_in)


def say(event):
    print(json.dumps(event), flush=True)


def caught_up(consumer):
    assignment = consumer.assignment()
    if not assignment:
        return False
    for position in consumer.position(assignment):
        _, high = consumer.get_watermark_offsets(position, timeout=10)
        if position.offset < 0 or position.offset < high:
            return False
    return True


try:
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "isolation.level": "read_committed",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        # A static member: the restart takes the killed one's place at once, not after its session.
        "group.instance.id": f"{transactional_id}-member",
        "session.timeout.ms": 6000,
    })
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id, "transaction.timeout.ms": 30000})
    # Fences the killed instance and aborts the transaction it left open.
    producer.init_transactions(30)
    consumer.subscribe([source])
    transactions = 0
    deadline = time.time() + 90
    while time.time() < deadline:
        records = [record for record in consumer.consume(num_messages=20, timeout=0.5) if record.error() is None]
        if not records:
            if kill_in == 0 and caught_up(consumer):
                say({"event": "done", "transactions": transactions})
                sys.exit(0)
            continue
        producer.begin_transaction()
        for record in records:
            producer.produce(target, key=record.key(), value=b"t-" + record.value())
        producer.flush(30)
        transactions += 1
        if transactions == kill_in:
            say({"event": "kill-me", "records": len(records)})
            time.sleep(60)
        producer.send_offsets_to_transaction(consumer.position(consumer.assignment()), consumer.consumer_group_metadata(), 30)
        producer.commit_transaction(30)
    say({"event": "error", "error": "timed out"})
    sys.exit(1)
except Exception as exception:  # reported to the test, which shows it
    say({"event": "error", "error": f"{type(exception).__name__}: {exception}"})
    sys.exit(1)

"""Delivery reports of confluent-kafka's Producer gathered by name, for the programs beside this file."""


def delivered(deliveries, name):
    """An on_delivery callback storing, under `name`, None when written or the error's code, name and retriability."""

    def report(error, _message):
        deliveries[name] = None if error is None else {"code": error.code(), "name": error.name(), "retriable": error.retriable()}

    return report

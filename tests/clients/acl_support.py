"""A broker with ACLs for the client suites (test_kafkajs.py, test_sarama.py):
Kafka's StandardAuthorizer (docs/acls.md) behind a SASL/PLAIN listener, so
that clients sign in as named users.

    admin / admin-secret   a super user (super.users), as is User:ANONYMOUS,
                           the PLAINTEXT listener's principal (the node's own
                           controller and replication traffic)
    alice / alice-secret   refused whatever no ACL allows her

Clients connect to .sasl_bootstrap; the PLAINTEXT listener (.bootstrap) is
only the harness's readiness check.
"""
from __future__ import annotations

import re

from samsa_harness import Broker, free_ports, wait_until

AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
USERS = {"admin": "admin-secret", "alice": "alice-secret"}
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" '
        + " ".join(f'user_{u}="{p}"' for u, p in USERS.items()) + ";")


def acl_broker(binary=None, overrides=None) -> Broker:
    """A one-node broker (not started) with PLAINTEXT, SASL_PLAINTEXT (PLAIN)
    and CONTROLLER listeners and the StandardAuthorizer."""
    # All three ports in one call (two calls may hand out the same port); a
    # fixed port, so that the harness never re-picks the PLAINTEXT and
    # controller ports under listeners written here.
    port, controller_port, sasl_port = free_ports(3)
    b = Broker(overrides=overrides, binary=binary, port=port)
    b.controller_port, b.sasl_port = controller_port, sasl_port
    b.sasl_bootstrap = f"127.0.0.1:{sasl_port}"
    props = {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port},"
                     f"CONTROLLER://127.0.0.1:{controller_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "CONTROLLER:PLAINTEXT",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "authorizer.class.name": AUTHORIZER,
        "super.users": "User:admin;User:ANONYMOUS",
        # One node: the offsets topic cannot have Kafka's default 3 replicas;
        # the first member of an empty group joins at once.
        "offsets.topic.replication.factor": 1,
        "group.initial.rebalance.delay.ms": 0,
    }
    b.extra_properties.update({k: str(v) for k, v in props.items()})
    b._write_properties()
    return b


DENIAL = re.compile(r'event=authorization_denied principal="([^"]*)" host=\S+ '
                    r'operation=(\S+) resource=(\S+) api=(\S+)')


def denials(broker: Broker, last: tuple[str, str, str, str], timeout: float = 20):
    """The refusals the broker logged (event=authorization_denied), as
    (principal, operation, resource, api), once it has logged `last`; a run of
    the same refusal counts once (how many requests a client sends for one
    step is its own business)."""
    def logged():
        found = [m.groups() for m in DENIAL.finditer(broker.log_text())]
        return found if last in found else None
    out = []
    for d in wait_until(logged, timeout, f"the broker to log the denial {last}"):
        if not out or out[-1] != d:
            out.append(d)
    return out

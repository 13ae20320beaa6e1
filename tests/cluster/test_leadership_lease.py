"""A leader cut off from the controller (cluster/leadership_lease.h): once no
heartbeat sent within broker.session.timeout.ms was acknowledged, a consumer
fetching above the leader's log end gets NOT_LEADER_OR_FOLLOWER (retriable:
the controller may have elected another leader that took those offsets)
instead of OFFSET_OUT_OF_RANGE, which makes a consumer reset to
auto.offset.reset. What the leader holds is still served; with the
controller back, the lease and Kafka's answer return."""
import signal

from samsa_harness import wait_until
from test_replication import FAST, create, fetch_v11, produce

OFFSET_OUT_OF_RANGE = 1
NOT_LEADER_OR_FOLLOWER = 6


def test_a_leader_without_a_lease_does_not_send_consumers_back_to_the_start(cluster):
    # Node 1 is the only controller; node 2 is a broker only, and leads.
    c = cluster(2, dict(FAST, **{"offsets.topic.replication.factor": 1}), voters=[1])
    create(c, "leased", assignment=[[2]])
    acked, errors = produce(c.bootstrap, "leased", [b"v%d" % i for i in range(3)])
    assert len(acked) == 3 and not errors
    leader, controller = c.node(2), c.node(1)

    def fetch_error(offset):
        return fetch_v11(leader, "leased", 0, offset, -1, "")[0]
    assert fetch_error(10) == OFFSET_OUT_OF_RANGE

    controller.kill(signal.SIGSTOP)
    try:
        # broker.session.timeout.ms is 3 s here.
        wait_until(lambda: fetch_error(10) == NOT_LEADER_OR_FOLLOWER, 30,
                   "the leader to lose its lease")
        err, _, records = fetch_v11(leader, "leased", 0, 0, -1, "")
        assert err == 0 and records
        assert fetch_error(3) == 0  # at the log end: nothing yet, as before
        assert "event=leadership_lease_lost" in leader.log_text()
    finally:
        controller.kill(signal.SIGCONT)
    wait_until(lambda: fetch_error(10) == OFFSET_OUT_OF_RANGE, 60,
               "the lease to be held again")
    assert "event=leadership_lease_held" in leader.log_text()

"""The active controller stops answering without closing its connections (a
SIGSTOP, as a network partition looks): the brokers' heartbeats in flight to
it must go to the new controller at once, not wait out request.timeout.ms
(30 s) while the new controller's sessions (broker.session.timeout.ms, 3 s
here) run out and it fences brokers that are fine."""
import signal
import time

from samsa_harness import wait_until
from test_quorum import FAST


def test_heartbeats_follow_a_new_controller_and_no_live_broker_is_fenced(cluster):
    c = cluster(3, FAST)
    first = c.wait_for_leader()
    stopped = c.node(first.leader_id)
    others = [b for b in c.nodes if b is not stopped]
    marks = {b.node_id: len(b.log_text()) for b in others}
    stopped.kill(signal.SIGSTOP)
    try:
        second = wait_until(lambda: next((q for q in [c.quorum(others[0]), c.quorum(others[1])]
                                          if q and q.leader_id not in (-1, stopped.node_id)),
                                         None), 30, "a new metadata quorum leader")
        new_controller = c.node(second.leader_id)
        # Two sessions past the failover: time enough for stuck heartbeats
        # to get the live brokers fenced, and for the stopped one to be.
        wait_until(lambda: f"event=broker_session_expired node_id={stopped.node_id}"
                   in new_controller.log_text()[marks[new_controller.node_id]:], 30,
                   "the stopped node's session to expire")
        time.sleep(2 * FAST["broker.session.timeout.ms"] / 1000)
        since = new_controller.log_text()[marks[new_controller.node_id]:]
        for b in others:
            assert f"event=broker_session_expired node_id={b.node_id} " not in since, since
    finally:
        stopped.kill(signal.SIGCONT)

"""The seeded schedule and the report, without a cluster: the same seed gives
the same fault timeline; the timeline SVG is well-formed."""
import xml.etree.ElementTree as ET

import nemesis
import report


def test_same_seed_same_timeline():
    a = nemesis.schedule(42, list(nemesis.KINDS), 120.0, [1, 2, 3], full=True)
    b = nemesis.schedule(42, list(nemesis.KINDS), 120.0, [1, 2, 3], full=True)
    assert [f.to_json() for f in a] == [f.to_json() for f in b]
    c = nemesis.schedule(43, list(nemesis.KINDS), 120.0, [1, 2, 3], full=True)
    assert [f.to_json() for f in a] != [f.to_json() for f in c]


def test_every_kind_appears_and_faults_end_before_the_run():
    faults = nemesis.schedule(7, list(nemesis.KINDS), 120.0, [1, 2, 3])
    assert {f.kind for f in faults} == set(nemesis.KINDS)
    for f, g in zip(faults, faults[1:]):
        assert f.end < g.start
    assert faults[-1].end <= 118.0 and faults[0].start >= 2.0


def test_quick_run_has_one_fault_of_its_kind():
    for kind in nemesis.KINDS:
        faults = nemesis.schedule(1, [kind], 12.0, [1, 2, 3])
        assert [f.kind for f in faults] == [kind]
        f = faults[0]
        assert f.end - f.start >= 4.0 and f.end <= 10.0


def test_groups_by_kind():
    for seed in range(50):
        for kind in ("partition", "oneway"):
            a, b = nemesis.make_fault(__import__("random").Random(seed), kind, 0, 1,
                                      [1, 2, 3], False).groups
            assert a and b and not set(a) & set(b) and set(a) | set(b) == {1, 2, 3}
        x, y, bridge = nemesis.make_fault(__import__("random").Random(seed), "bridge", 0, 1,
                                          [1, 2, 3], False).groups
        assert len(bridge) == 1 and len(x) == 1 and len(y) == 1
        assert set(x) | set(y) | set(bridge) == {1, 2, 3}
        kill = nemesis.make_fault(__import__("random").Random(seed), "kill", 0, 1,
                                  [1, 2, 3], False)
        assert len(kill.groups[0]) == 1


def test_timeline_svg_is_well_formed():
    history = [{"type": "send", "t": 0.1}, {"type": "ack", "t": 0.5},
               {"type": "fail", "t": 3.2}, {"type": "ack", "t": 6.0}]
    faults = [{"kind": "partition", "start": 2.0, "end": 5.0, "detail": "{1} x {2,3}"}]
    svg = report.svg_timeline(history, faults, [{"kind": "lost", "message": "v <x>", "t": 6.0}],
                              "run & title", 10.0)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert "partition" in svg and "anomaly (1)" in svg


def test_a_node_the_disk_nemesis_starved_at_start_is_not_an_error(tmp_path):
    """Filled again right after a heal restarted it, a node cannot open its
    logs and exits saying so; the next heal starts it. Any other exit of its
    own is an error of the run."""
    import run
    import workload

    class Node:
        node_id, starts, returncode, killed, proc = 3, 2, 1, False, object()

        def __init__(self, log):
            self.filler = tmp_path / "zz-disk-filler"
            self.log = log

        def is_running(self):
            return False

        def log_text(self):
            return self.log

    class Cluster:
        nodes = []

    starved = ('[..] error event=start_failed error="cannot open the metadata log: pwrite '
               'x.snapshot.tmp: No space left on device" (kafka.server)\n')
    for log, filled, error in ((starved, True, False), (starved, False, True),
                               ("[..] critical something else\n", True, True)):
        node = Node(log)
        if filled:
            node.filler.write_text("")
        elif node.filler.exists():
            node.filler.unlink()
        Cluster.nodes = [node]
        watch = run._Watch(Cluster(), workload.History())
        watch.poll()
        assert bool(watch.errors) == error, (log, filled, watch.errors)

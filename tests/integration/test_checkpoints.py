"""Each checkpoint file of a log dir is written on its own Kafka schedule:
replication-offset-checkpoint every replica.high.watermark.checkpoint.interval.ms,
recovery-point-offset-checkpoint every log.flush.offset.checkpoint.interval.ms,
log-start-offset-checkpoint every log.flush.start.offset.checkpoint.interval.ms."""
from test_produce_consume import create_topic, produce, wait_for


def checkpoint_entry(path, topic, partition=0):
    """The offset a checkpoint file holds for topic-partition, or None."""
    if not path.exists():
        return None
    lines = path.read_text().splitlines()
    for line in lines[2:]:
        name, p, offset = line.split(" ")
        if name == topic and int(p) == partition:
            return int(offset)
    return None


def test_each_checkpoint_follows_its_own_interval(start_broker):
    broker = start_broker(overrides={
        "replica.high.watermark.checkpoint.interval.ms": 1000,
        "log.flush.start.offset.checkpoint.interval.ms": 1000,
        # Past the test's end: this file must not change meanwhile.
        "log.flush.offset.checkpoint.interval.ms": 3600000,
    })
    topic = "checkpointed"
    create_topic(broker.bootstrap, topic)
    reports = produce(broker.bootstrap, topic, [(None, b"v%d" % i, None) for i in range(100)])
    assert len(reports) == 100
    hw = broker.data_dir / "replication-offset-checkpoint"
    start = broker.data_dir / "log-start-offset-checkpoint"
    recovery = broker.data_dir / "recovery-point-offset-checkpoint"
    wait_for(lambda: checkpoint_entry(hw, topic) == 100, "the high watermark checkpointed",
             timeout=60)
    wait_for(lambda: checkpoint_entry(start, topic) == 0, "the log start checkpointed",
             timeout=60)
    assert checkpoint_entry(recovery, topic) is None, recovery.read_text()

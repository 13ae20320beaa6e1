package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

const (
	groupPartitions = 4
	perPartition    = 10 // records produced to each partition
	markBelow       = 6  // members mark (commit) the records below this offset
)

type sessionInfo struct {
	Member     string  `json:"member"`
	MemberID   string  `json:"member_id"`
	Generation int32   `json:"generation"`
	Claims     []int32 `json:"claims"`
}

type groupRecord struct {
	Member     string `json:"member"`
	Generation int32  `json:"generation"`
	Partition  int32  `json:"partition"`
	Offset     int64  `json:"offset"`
	Value      string `json:"value"`
}

// member is one sarama ConsumerGroup (its own client), consuming in a loop
// of Consume calls (one per generation) until stopped.
type member struct {
	name      string
	topic     string
	markBelow int64
	group     sarama.ConsumerGroup
	cancel    context.CancelFunc
	done      chan struct{}

	mu       sync.Mutex
	sessions []sessionInfo
	records  []groupRecord
	errors   []string
}

func (m *member) Setup(s sarama.ConsumerGroupSession) error {
	claims := append([]int32{}, s.Claims()[m.topic]...)
	sort.Slice(claims, func(i, j int) bool { return claims[i] < claims[j] })
	m.mu.Lock()
	m.sessions = append(m.sessions, sessionInfo{Member: m.name, MemberID: s.MemberID(),
		Generation: s.GenerationID(), Claims: claims})
	m.mu.Unlock()
	return nil
}

func (m *member) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (m *member) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		m.mu.Lock()
		m.records = append(m.records, groupRecord{Member: m.name, Generation: s.GenerationID(),
			Partition: msg.Partition, Offset: msg.Offset, Value: string(msg.Value)})
		m.mu.Unlock()
		if msg.Offset < m.markBelow {
			s.MarkMessage(msg, "meta-"+m.name)
		}
	}
	return nil
}

func (m *member) snapshot() ([]sessionInfo, []groupRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]sessionInfo{}, m.sessions...), append([]groupRecord{}, m.records...)
}

func (m *member) errorList() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string{}, m.errors...)
}

func (m *member) lastSession() (sessionInfo, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sessions) == 0 {
		return sessionInfo{}, false
	}
	return m.sessions[len(m.sessions)-1], true
}

func groupConfig(c *common) *sarama.Config {
	cfg := newConfig(c)
	cfg.Consumer.Return.Errors = true
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.CommitInterval = 100 * time.Millisecond
	cfg.Consumer.Group.Heartbeat.Interval = 200 * time.Millisecond
	cfg.Consumer.Group.Session.Timeout = 10 * time.Second
	cfg.Consumer.Group.Rebalance.Timeout = 20 * time.Second
	cfg.Consumer.Group.Rebalance.Retry.Max = 50
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 100 * time.Millisecond
	cfg.Consumer.Group.Rebalance.Strategy = sarama.BalanceStrategyRange
	return cfg
}

func startMember(c *common, groupID, name string, markBelow int64) *member {
	g, err := sarama.NewConsumerGroup([]string{c.bootstrap}, groupID, groupConfig(c))
	if err != nil {
		fatalf("NewConsumerGroup %s: %v", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{name: name, topic: c.topic, markBelow: markBelow, group: g, cancel: cancel,
		done: make(chan struct{})}
	go func() {
		for err := range g.Errors() {
			m.mu.Lock()
			m.errors = append(m.errors, err.Error())
			m.mu.Unlock()
		}
	}()
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			if err := g.Consume(ctx, []string{c.topic}, m); err != nil {
				m.mu.Lock()
				m.errors = append(m.errors, "Consume: "+err.Error())
				m.mu.Unlock()
				if err == sarama.ErrClosedConsumerGroup {
					return
				}
				// Not a synchronisation: the pause before joining again.
				time.Sleep(100 * time.Millisecond)
			}
		}
	}()
	return m
}

// stop ends the member's Consume loop and closes its group (LeaveGroup).
func (m *member) stop() {
	m.cancel()
	<-m.done
	if err := m.group.Close(); err != nil {
		m.mu.Lock()
		m.errors = append(m.errors, "Close: "+err.Error())
		m.mu.Unlock()
	}
}

// waitFor polls cond until it holds or stepTimeout passes (then fatal).
func waitFor(what string, cond func() bool, state func() interface{}) {
	deadline := time.Now().Add(stepTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			fatalf("timed out after %v waiting for %s; state: %+v", stepTimeout, what, state())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type committed struct {
	Offset   int64  `json:"offset"`
	Metadata string `json:"metadata"`
	Code     int    `json:"code"`
}

func fetchCommitted(admin sarama.ClusterAdmin, groupID, topic string) (map[int32]committed, error) {
	parts := []int32{}
	for p := int32(0); p < groupPartitions; p++ {
		parts = append(parts, p)
	}
	resp, err := admin.ListConsumerGroupOffsets(groupID, map[string][]int32{topic: parts})
	if err != nil {
		return nil, err
	}
	out := map[int32]committed{}
	for _, p := range parts {
		b := resp.GetBlock(topic, p)
		if b == nil {
			return nil, fmt.Errorf("OffsetFetch: no block for %s/%d", topic, p)
		}
		out[p] = committed{Offset: b.Offset, Metadata: b.Metadata, Code: int(b.Err)}
	}
	return out, nil
}

func waitCommitted(admin sarama.ClusterAdmin, groupID, topic string, want func(int32) int64) map[int32]committed {
	var last map[int32]committed
	var lastErr error
	waitFor("committed offsets", func() bool {
		last, lastErr = fetchCommitted(admin, groupID, topic)
		if lastErr != nil {
			return false
		}
		for p, cm := range last {
			if cm.Offset != want(p) {
				return false
			}
		}
		return true
	}, func() interface{} { return fmt.Sprintf("%v (error %v)", last, lastErr) })
	return last
}

// groupScenario: members A and B of one group divide a 4-partition topic,
// consume what is produced afterwards and commit offsets below markBelow;
// once both left, member C resumes from the committed offsets. Last, the
// standalone offset manager (generation -1, OffsetCommit v2) reads the
// commits and rewinds them.
func groupScenario(c *common, groupID string) map[string]interface{} {
	createTopic(c, c.topic, groupPartitions)
	r := map[string]interface{}{"version": c.version.String()}
	admin, err := sarama.NewClusterAdmin([]string{c.bootstrap}, newConfig(c))
	if err != nil {
		fatalf("NewClusterAdmin: %v", err)
	}
	defer admin.Close()

	pcfg := newConfig(c)
	pcfg.Producer.RequiredAcks = sarama.WaitForAll
	pcfg.Producer.Return.Successes = true
	pcfg.Producer.Partitioner = sarama.NewManualPartitioner
	pclient, err := sarama.NewClient([]string{c.bootstrap}, pcfg)
	if err != nil {
		fatalf("NewClient: %v", err)
	}
	defer pclient.Close()
	waitPartitions(pclient, c.topic, groupPartitions)

	// Phase 1: A alone, then A and B in one generation.
	a := startMember(c, groupID, "A", markBelow)
	waitFor("A to claim every partition", func() bool {
		s, ok := a.lastSession()
		return ok && len(s.Claims) == groupPartitions
	}, func() interface{} { s, _ := a.snapshot(); return s })
	b := startMember(c, groupID, "B", markBelow)
	var shared []sessionInfo
	waitFor("A and B to share a generation", func() bool {
		sa, oka := a.lastSession()
		sb, okb := b.lastSession()
		if oka && okb && sa.Generation == sb.Generation && len(sa.Claims)+len(sb.Claims) == groupPartitions {
			shared = []sessionInfo{sa, sb}
			return true
		}
		return false
	}, func() interface{} { sa, _ := a.snapshot(); sb, _ := b.snapshot(); return []interface{}{sa, sb} })
	r["shared_generation"] = shared

	if desc, err := admin.DescribeConsumerGroups([]string{groupID}); err != nil {
		r["describe_group_error"] = err.Error()
	} else if len(desc) == 1 {
		d := desc[0]
		members := map[string][]int32{}
		for id, md := range d.Members {
			assignment, err := md.GetMemberAssignment()
			if err != nil {
				fatalf("member assignment of %s: %v", id, err)
			}
			parts := append([]int32{}, assignment.Topics[c.topic]...)
			sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
			members[id] = parts
		}
		r["describe_group"] = map[string]interface{}{"code": int(d.Err), "state": d.State,
			"protocol_type": d.ProtocolType, "protocol": d.Protocol, "members": members}
	}

	producer, err := sarama.NewSyncProducerFromClient(pclient)
	if err != nil {
		fatalf("NewSyncProducer: %v", err)
	}
	defer producer.Close()
	var msgs []*sarama.ProducerMessage
	for p := int32(0); p < groupPartitions; p++ {
		for i := 0; i < perPartition; i++ {
			msgs = append(msgs, &sarama.ProducerMessage{Topic: c.topic, Partition: p,
				Value: sarama.StringEncoder(fmt.Sprintf("p%d-%d", p, i))})
		}
	}
	if err := producer.SendMessages(msgs); err != nil {
		fatalf("SendMessages: %v", err)
	}

	allConsumed := func(ms ...*member) bool {
		seen := map[[2]int64]bool{}
		for _, m := range ms {
			_, recs := m.snapshot()
			for _, rec := range recs {
				seen[[2]int64{int64(rec.Partition), rec.Offset}] = true
			}
		}
		return len(seen) == groupPartitions*perPartition
	}
	waitFor("A and B to consume every record", func() bool { return allConsumed(a, b) },
		func() interface{} { _, ra := a.snapshot(); _, rb := b.snapshot(); return len(ra) + len(rb) })
	r["committed_phase1"] = waitCommitted(admin, groupID, c.topic, func(int32) int64 { return markBelow })

	var wg sync.WaitGroup
	for _, m := range []*member{a, b} {
		wg.Add(1)
		go func(m *member) { defer wg.Done(); m.stop() }(m)
	}
	wg.Wait()
	sa, ra := a.snapshot()
	sb, rb := b.snapshot()
	r["sessions_a"], r["records_a"], r["errors_a"] = sa, ra, a.errorList()
	r["sessions_b"], r["records_b"], r["errors_b"] = sb, rb, b.errorList()

	// Phase 2: C resumes where A and B committed, and commits the rest.
	cm := startMember(c, groupID, "C", perPartition)
	waitFor("C to consume the uncommitted records", func() bool {
		_, recs := cm.snapshot()
		seen := map[[2]int64]bool{}
		for _, rec := range recs {
			seen[[2]int64{int64(rec.Partition), rec.Offset}] = true
		}
		return len(seen) == groupPartitions*(perPartition-markBelow)
	}, func() interface{} { s, recs := cm.snapshot(); return []interface{}{s, recs} })
	r["committed_phase2"] = waitCommitted(admin, groupID, c.topic, func(int32) int64 { return perPartition })
	cm.stop()
	sc, rc := cm.snapshot()
	r["sessions_c"], r["records_c"], r["errors_c"] = sc, rc, cm.errorList()

	// Phase 3: the offset manager outside any generation, on an empty group.
	ocfg := newConfig(c)
	ocfg.Consumer.Offsets.Retention = time.Hour // OffsetCommit v2
	ocfg.Consumer.Return.Errors = true
	oclient, err := sarama.NewClient([]string{c.bootstrap}, ocfg)
	if err != nil {
		fatalf("NewClient: %v", err)
	}
	defer oclient.Close()
	om, err := sarama.NewOffsetManagerFromClient(groupID, oclient)
	if err != nil {
		fatalf("NewOffsetManagerFromClient: %v", err)
	}
	next := map[int32]committed{}
	pomErrors := []string{}
	var poms []sarama.PartitionOffsetManager
	for p := int32(0); p < groupPartitions; p++ {
		pom, err := om.ManagePartition(c.topic, p)
		if err != nil {
			fatalf("ManagePartition %d: %v", p, err)
		}
		off, meta := pom.NextOffset()
		next[p] = committed{Offset: off, Metadata: meta}
		pom.ResetOffset(int64(p)+1, fmt.Sprintf("om-%d", p))
		poms = append(poms, pom)
	}
	// AsyncClose, then the manager's Close: its last flush commits the
	// offsets and releases the partition managers, closing their Errors().
	for _, pom := range poms {
		pom.AsyncClose()
	}
	if err := om.Close(); err != nil {
		fatalf("offset manager Close: %v", err)
	}
	for _, pom := range poms {
		for err := range pom.Errors() {
			pomErrors = append(pomErrors, err.Error())
		}
	}
	r["offset_manager_next"] = next
	r["offset_manager_errors"] = pomErrors
	r["committed_phase3"] = waitCommitted(admin, groupID, c.topic, func(p int32) int64 { return int64(p) + 1 })
	return r
}

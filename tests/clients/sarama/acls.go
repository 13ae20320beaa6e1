package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/Shopify/sarama"
)

// ACLs as sarama 1.22.1 has them. Its ClusterAdmin sends every ACL request at
// version 0 (CreateACL, ListAcls, DeleteACL): no pattern type, so Kafka takes
// each filter and each new ACL as LITERAL. It also drops the per-ACL error
// codes of CreateAcls and DeleteAcls and the error code of DescribeAcls. So
// the scenario uses ClusterAdmin where that is enough, and the requests
// themselves, at version 1 (PREFIXED patterns, and every error code), on the
// controller broker sarama's client found.

// Kafka's names for the wire ids (AclResourceType, PatternType, AclOperation,
// AclPermissionType), indexed by id.
var (
	resourceTypeNames = []string{"UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID",
		"DELEGATION_TOKEN"}
	patternTypeNames = []string{"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"}
	operationNames   = []string{"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER",
		"DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE"}
	permissionNames = []string{"UNKNOWN", "ANY", "DENY", "ALLOW"}
)

func enumName(names []string, id int) string {
	if id >= 0 && id < len(names) {
		return names[id]
	}
	return fmt.Sprintf("?%d", id)
}

// aclJSON is one ACL binding as the scenario reports it.
type aclJSON struct {
	ResourceType string `json:"resource_type"`
	ResourceName string `json:"resource_name"`
	PatternType  string `json:"pattern_type"`
	Principal    string `json:"principal"`
	Host         string `json:"host"`
	Operation    string `json:"operation"`
	Permission   string `json:"permission"`
}

func toJSON(r sarama.Resource, a sarama.Acl) aclJSON {
	return aclJSON{
		ResourceType: enumName(resourceTypeNames, int(r.ResourceType)),
		ResourceName: r.ResourceName,
		PatternType:  enumName(patternTypeNames, int(r.ResoucePatternType)),
		Principal:    a.Principal,
		Host:         a.Host,
		Operation:    enumName(operationNames, int(a.Operation)),
		Permission:   enumName(permissionNames, int(a.PermissionType)),
	}
}

func sortACLs(list []aclJSON) []aclJSON {
	key := func(a aclJSON) string {
		return fmt.Sprintf("%s|%s|%s|%s|%s|%s", a.ResourceType, a.ResourceName, a.PatternType, a.Principal,
			a.Operation, a.Permission)
	}
	sort.Slice(list, func(i, j int) bool { return key(list[i]) < key(list[j]) })
	return list
}

func flatten(resources []*sarama.ResourceAcls) []aclJSON {
	out := []aclJSON{}
	for _, r := range resources {
		for _, a := range r.Acls {
			out = append(out, toJSON(r.Resource, *a))
		}
	}
	return sortACLs(out)
}

// binding is an ACL to create.
type binding struct {
	resource sarama.Resource
	acl      sarama.Acl
}

func newBinding(rt sarama.AclResourceType, name string, pt sarama.AclResourcePatternType, principal string,
	op sarama.AclOperation, perm sarama.AclPermissionType) binding {
	return binding{sarama.Resource{ResourceType: rt, ResourceName: name, ResoucePatternType: pt},
		sarama.Acl{Principal: principal, Host: "*", Operation: op, PermissionType: perm}}
}

// anyFilter matches every ACL; fields are then narrowed by the caller.
func anyFilter() sarama.AclFilter {
	return sarama.AclFilter{ResourceType: sarama.AclResourceAny, ResourcePatternTypeFilter: sarama.AclPatternAny,
		Operation: sarama.AclOperationAny, PermissionType: sarama.AclPermissionAny}
}

func strPtr(s string) *string { return &s }

// aclAPI sends ACL requests, at version 1, to the controller sarama's client
// knows of.
type aclAPI struct {
	client sarama.Client
}

func newACLAPI(c *common) aclAPI {
	client, err := sarama.NewClient([]string{c.bootstrap}, newConfig(c))
	if err != nil {
		fatalf("NewClient (%s): %v", c.user, err)
	}
	return aclAPI{client}
}

func (a aclAPI) controller() *sarama.Broker {
	b, err := a.client.Controller()
	if err != nil {
		fatalf("Controller: %v", err)
	}
	return b
}

type codeMessage struct {
	Code    int    `json:"code"`
	Message string `json:"message,omitempty"`
}

func message(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// create answers the error code of each binding, in order.
func (a aclAPI) create(bindings ...binding) []codeMessage {
	req := &sarama.CreateAclsRequest{Version: 1}
	for _, b := range bindings {
		req.AclCreations = append(req.AclCreations, &sarama.AclCreation{Resource: b.resource, Acl: b.acl})
	}
	resp, err := a.controller().CreateAcls(req)
	if err != nil {
		fatalf("CreateAcls v1: %v", err)
	}
	out := []codeMessage{}
	for _, c := range resp.AclCreationResponses {
		out = append(out, codeMessage{int(c.Err), message(c.ErrMsg)})
	}
	return out
}

type describeResult struct {
	Code    int       `json:"code"`
	Message string    `json:"message,omitempty"`
	ACLs    []aclJSON `json:"acls"`
}

func (a aclAPI) describe(filter sarama.AclFilter) describeResult {
	resp, err := a.controller().DescribeAcls(&sarama.DescribeAclsRequest{Version: 1, AclFilter: filter})
	if err != nil {
		fatalf("DescribeAcls v1: %v", err)
	}
	return describeResult{int(resp.Err), message(resp.ErrMsg), flatten(resp.ResourceAcls)}
}

// describeUntil polls DescribeAcls (every ACL) until ok holds: the broker
// serves it from its metadata image, the one it authorizes against, which
// takes in a change once the controller committed it.
func (a aclAPI) describeUntil(what string, ok func([]aclJSON) bool) []aclJSON {
	var last describeResult
	waitFor(what, func() bool {
		last = a.describe(anyFilter())
		return last.Code == 0 && ok(last.ACLs)
	}, func() interface{} { return last })
	return last.ACLs
}

type matchingJSON struct {
	Code int `json:"code"`
	aclJSON
}

type deleteResult struct {
	Code     int            `json:"code"`
	Message  string         `json:"message,omitempty"`
	Matching []matchingJSON `json:"matching"`
}

func matchingList(acls []*sarama.MatchingAcl) []matchingJSON {
	out := []matchingJSON{}
	for _, m := range acls {
		out = append(out, matchingJSON{int(m.Err), toJSON(m.Resource, m.Acl)})
	}
	sort.Slice(out, func(i, j int) bool {
		return fmt.Sprint(out[i].aclJSON) < fmt.Sprint(out[j].aclJSON)
	})
	return out
}

func (a aclAPI) delete(filters ...sarama.AclFilter) []deleteResult {
	req := &sarama.DeleteAclsRequest{Version: 1}
	for i := range filters {
		req.Filters = append(req.Filters, &filters[i])
	}
	resp, err := a.controller().DeleteAcls(req)
	if err != nil {
		fatalf("DeleteAcls v1: %v", err)
	}
	out := []deleteResult{}
	for _, f := range resp.FilterResponses {
		out = append(out, deleteResult{int(f.Err), message(f.ErrMsg), matchingList(f.MatchingAcls)})
	}
	return out
}

// outcome is what one client step came to: a Kafka error code (0: none,
// -1: an error without one) and sarama's text for it.
type outcome struct {
	Code  int    `json:"code"`
	Error string `json:"error,omitempty"`
}

func outcomeOf(err error) outcome {
	return outcome{kerrCode(err), errString(err)}
}

type noopHandler struct{}

func (noopHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (noopHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (noopHandler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for range claim.Messages() {
	}
	return nil
}

// consumeRefused runs one Consume of a new ConsumerGroup that must fail (no
// retries of the session); its error.
func consumeRefused(c *common, groupID string) outcome {
	cfg := groupConfig(c)
	cfg.Consumer.Group.Rebalance.Retry.Max = 0
	g, err := sarama.NewConsumerGroup([]string{c.bootstrap}, groupID, cfg)
	if err != nil {
		return outcomeOf(err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	err = g.Consume(ctx, []string{c.topic}, noopHandler{})
	if err == nil {
		return outcome{Code: 0, Error: "Consume returned without an error"}
	}
	return outcomeOf(err)
}

// newProducer is a SyncProducer (acks=all, partition 0, no retries) on a
// client of its own.
func newProducer(c *common) (sarama.SyncProducer, sarama.Client) {
	cfg := newConfig(c)
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Retry.Max = 0
	client, err := sarama.NewClient([]string{c.bootstrap}, cfg)
	if err != nil {
		fatalf("NewClient (%s): %v", c.user, err)
	}
	producer, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		fatalf("NewSyncProducer (%s): %v", c.user, err)
	}
	return producer, client
}

func aclMessages(topic string) []*sarama.ProducerMessage {
	msgs := []*sarama.ProducerMessage{}
	for i := 0; i < 3; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: 0,
			Key: sarama.StringEncoder("k"), Value: sarama.StringEncoder(fmt.Sprintf("a%d", i))})
	}
	return msgs
}

// produceOutcome: SendMessages of three records; their offsets, or the
// error of each record (sarama.ProducerErrors).
func produceOutcome(p sarama.SyncProducer, topic string) map[string]interface{} {
	msgs := aclMessages(topic)
	err := p.SendMessages(msgs)
	if err == nil {
		offsets := []int64{}
		for _, m := range msgs {
			offsets = append(offsets, m.Offset)
		}
		return map[string]interface{}{"offsets": offsets}
	}
	out := map[string]interface{}{"error": errString(err)}
	if perrs, ok := err.(sarama.ProducerErrors); ok {
		codes := []int{}
		for _, pe := range perrs {
			codes = append(codes, kerrCode(pe.Err))
		}
		out["codes"] = codes
	} else {
		out["codes"] = []int{kerrCode(err)}
	}
	return out
}

func asUser(c *common, user string) *common {
	cc := *c
	cc.user = user
	pw, ok := c.users[user]
	if !ok || pw == nil {
		fatalf("no password for %s (--sasl-user %s=PASSWORD)", user, user)
	}
	cc.password = *pw
	return &cc
}

// aclsScenario, against the SASL_PLAINTEXT listener of a broker with Kafka's
// StandardAuthorizer: admin (a super user) creates the topic and ACLs and
// describes them; alice is refused a produce and a group join until ACLs
// allow them, then reads her records back; she may not manage ACLs; admin
// deletes her ACLs (the v0 request reaches only the LITERAL ones, v1 the
// rest) and she is refused again.
func aclsScenario(c *common, groupID, prefix string) map[string]interface{} {
	admin, alice := asUser(c, "admin"), asUser(c, "alice")
	topic := c.topic
	r := map[string]interface{}{}
	createTopic(admin, topic, 1)

	cadmin, err := sarama.NewClusterAdmin([]string{c.bootstrap}, newConfig(admin))
	if err != nil {
		fatalf("NewClusterAdmin (admin): %v", err)
	}
	defer cadmin.Close()
	api := newACLAPI(admin)
	defer api.client.Close()

	readTopic := newBinding(sarama.AclResourceTopic, topic, sarama.AclPatternLiteral, "User:alice",
		sarama.AclOperationRead, sarama.AclPermissionAllow)
	describeGroups := newBinding(sarama.AclResourceGroup, prefix, sarama.AclPatternPrefixed, "User:alice",
		sarama.AclOperationDescribe, sarama.AclPermissionAllow)
	denyCarol := newBinding(sarama.AclResourceTopic, prefix, sarama.AclPatternPrefixed, "User:carol",
		sarama.AclOperationAll, sarama.AclPermissionDeny)
	writePrefix := newBinding(sarama.AclResourceTopic, prefix+"ord", sarama.AclPatternPrefixed, "User:alice",
		sarama.AclOperationWrite, sarama.AclPermissionAllow)
	readGroup := newBinding(sarama.AclResourceGroup, groupID, sarama.AclPatternLiteral, "User:alice",
		sarama.AclOperationRead, sarama.AclPermissionAllow)

	// --- admin: create and describe ---
	r["create_acl"] = errString(cadmin.CreateACL(readTopic.resource, readTopic.acl)) // v0
	r["create_acls_v1"] = api.create(describeGroups, denyCarol)
	r["describe_all"] = api.describeUntil("three ACLs", func(a []aclJSON) bool { return len(a) >= 3 })
	aliceFilter := anyFilter()
	aliceFilter.Principal = strPtr("User:alice")
	r["describe_alice"] = api.describe(aliceFilter)
	prefixed := anyFilter()
	prefixed.ResourcePatternTypeFilter = sarama.AclPatternPrefixed
	r["describe_prefixed"] = api.describe(prefixed)
	match := anyFilter()
	match.ResourceType = sarama.AclResourceTopic
	match.ResourceName = strPtr(topic)
	match.ResourcePatternTypeFilter = sarama.AclPatternMatch
	r["describe_match"] = api.describe(match)
	listed, err := cadmin.ListAcls(anyFilter()) // v0: LITERAL ACLs only
	if err != nil {
		fatalf("ListAcls: %v", err)
	}
	r["list_acls_v0"] = flatten(func() []*sarama.ResourceAcls {
		out := []*sarama.ResourceAcls{}
		for i := range listed {
			out = append(out, &listed[i])
		}
		return out
	}())

	// --- alice: produce ---
	producer, pclient := newProducer(alice)
	r["produce_refused"] = produceOutcome(producer, topic)
	r["create_acls_write"] = api.create(writePrefix)
	api.describeUntil("the WRITE ACL", func(a []aclJSON) bool { return len(a) >= 4 })
	r["produced"] = produceOutcome(producer, topic)
	_ = producer.Close()
	_ = pclient.Close()

	// --- alice: consume in a group ---
	r["consume_refused"] = consumeRefused(alice, groupID)
	r["create_acl_read_group"] = errString(cadmin.CreateACL(readGroup.resource, readGroup.acl)) // v0
	api.describeUntil("the READ group ACL", func(a []aclJSON) bool { return len(a) >= 5 })
	groupRead := anyFilter()
	groupRead.ResourceType = sarama.AclResourceGroup
	groupRead.Operation = sarama.AclOperationRead
	r["describe_group_read"] = api.describe(groupRead)
	m := startMember(alice, groupID, "alice", 3)
	waitFor("alice to consume 3 records", func() bool { _, recs := m.snapshot(); return len(recs) >= 3 },
		func() interface{} { s, recs := m.snapshot(); return []interface{}{s, recs, m.errorList()} })
	var committedOffset int64 = -1
	waitFor("alice's commit", func() bool {
		resp, err := cadmin.ListConsumerGroupOffsets(groupID, map[string][]int32{topic: {0}})
		if err != nil {
			return false
		}
		if b := resp.GetBlock(topic, 0); b != nil {
			committedOffset = b.Offset
		}
		return committedOffset == 3
	}, func() interface{} { return committedOffset })
	m.stop()
	_, recs := m.snapshot()
	r["consumed"] = recs
	r["consume_errors"] = m.errorList()
	r["committed"] = committedOffset

	// --- alice: manage ACLs ---
	acadmin, err := sarama.NewClusterAdmin([]string{c.bootstrap}, newConfig(alice))
	if err != nil {
		fatalf("NewClusterAdmin (alice): %v", err)
	}
	defer acadmin.Close()
	aliceAPI := newACLAPI(alice)
	defer aliceAPI.client.Close()
	grant := newBinding(sarama.AclResourceCluster, "kafka-cluster", sarama.AclPatternLiteral, "User:alice",
		sarama.AclOperationAlter, sarama.AclPermissionAllow)
	r["alice_create_acl"] = errString(acadmin.CreateACL(grant.resource, grant.acl)) // drops the code
	r["alice_create_acls_v1"] = aliceAPI.create(grant)
	r["alice_describe_acls_v1"] = aliceAPI.describe(anyFilter())
	r["alice_delete_acls_v1"] = aliceAPI.delete(anyFilter())
	r["describe_after_alice"] = api.describe(anyFilter()).ACLs

	// --- admin: delete alice's ACLs ---
	deleted, err := cadmin.DeleteACL(aliceFilter, false) // v0: the LITERAL ones
	if err != nil {
		fatalf("DeleteACL: %v", err)
	}
	deletedPtrs := []*sarama.MatchingAcl{}
	for i := range deleted {
		deletedPtrs = append(deletedPtrs, &deleted[i])
	}
	r["delete_acl_v0"] = matchingList(deletedPtrs)
	r["delete_acls_v1"] = api.delete(aliceFilter)
	r["describe_after_delete"] = api.describeUntil("alice's ACLs to be gone",
		func(a []aclJSON) bool { return len(a) <= 1 })

	// --- alice: refused again ---
	producer, pclient = newProducer(alice)
	r["produce_after_delete"] = produceOutcome(producer, topic)
	_ = producer.Close()
	_ = pclient.Close()
	r["consume_after_delete"] = consumeRefused(alice, groupID)
	_, err = acadmin.ListConsumerGroupOffsets(groupID, map[string][]int32{topic: {0}})
	r["fetch_offsets_after_delete"] = outcomeOf(err)

	hwm, err := api.client.GetOffset(topic, 0, sarama.OffsetNewest)
	if err != nil {
		fatalf("GetOffset: %v", err)
	}
	r["high_watermark"] = hwm
	return r
}

package main

import (
	"fmt"
	"sort"
	"time"

	"github.com/Shopify/sarama"
)

type topicInfo struct {
	Code       int       `json:"code"`
	Partitions []int32   `json:"partitions"`
	Leaders    []int32   `json:"leaders"`
	Replicas   [][]int32 `json:"replicas"`
}

func describeTopic(admin sarama.ClusterAdmin, topic string) (topicInfo, error) {
	md, err := admin.DescribeTopics([]string{topic})
	if err != nil {
		return topicInfo{}, err
	}
	for _, t := range md {
		if t.Name != topic {
			continue
		}
		info := topicInfo{Code: int(t.Err), Partitions: []int32{}, Leaders: []int32{}, Replicas: [][]int32{}}
		parts := append([]*sarama.PartitionMetadata(nil), t.Partitions...)
		sort.Slice(parts, func(i, j int) bool { return parts[i].ID < parts[j].ID })
		for _, p := range parts {
			info.Partitions = append(info.Partitions, p.ID)
			info.Leaders = append(info.Leaders, p.Leader)
			info.Replicas = append(info.Replicas, p.Replicas)
		}
		return info, nil
	}
	return topicInfo{}, fmt.Errorf("DescribeTopics: %s missing from the answer", topic)
}

// waitTopic polls DescribeTopics until ok(info) holds, and returns the last
// answer (ok or not, at the deadline).
func waitTopic(admin sarama.ClusterAdmin, topic string, ok func(topicInfo) bool) (topicInfo, error) {
	deadline := time.Now().Add(stepTimeout)
	for {
		info, err := describeTopic(admin, topic)
		if err == nil && ok(info) {
			return info, nil
		}
		if time.Now().After(deadline) {
			return info, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type configValue struct {
	Value    string `json:"value"`
	Default  bool   `json:"default"`
	ReadOnly bool   `json:"read_only"`
}

func describeConfig(admin sarama.ClusterAdmin, topic string) (map[string]configValue, error) {
	entries, err := admin.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
	if err != nil {
		return nil, err
	}
	out := map[string]configValue{}
	for _, e := range entries {
		out[e.Name] = configValue{Value: e.Value, Default: e.Default, ReadOnly: e.ReadOnly}
	}
	return out, nil
}

// adminScenario walks ClusterAdmin through a topic's life: create (3
// partitions, one config override), duplicate and invalid creates, list,
// describe, describe/alter configs, add partitions, delete. Each step's
// outcome (Kafka error code, 0 for success) goes into the result.
func adminScenario(c *common) map[string]interface{} {
	cfg := newConfig(c)
	admin, err := sarama.NewClusterAdmin([]string{c.bootstrap}, cfg)
	if err != nil {
		fatalf("NewClusterAdmin: %v", err)
	}
	defer admin.Close()
	r := map[string]interface{}{"version": c.version.String()}
	topic := c.topic
	retention := "123456"
	detail := &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1,
		ConfigEntries: map[string]*string{"retention.ms": &retention}}

	r["create"] = kerrCode(admin.CreateTopic(topic, detail, false))
	r["create_again"] = kerrCode(admin.CreateTopic(topic, detail, false))
	r["create_validate_only"] = kerrCode(admin.CreateTopic(topic+"-v", &sarama.TopicDetail{
		NumPartitions: 2, ReplicationFactor: 1}, true))
	r["create_rf3"] = kerrCode(admin.CreateTopic(topic+"-rf3", &sarama.TopicDetail{
		NumPartitions: 1, ReplicationFactor: 3}, false))
	badValue := "not-a-number"
	r["create_bad_config"] = kerrCode(admin.CreateTopic(topic+"-badcfg", &sarama.TopicDetail{
		NumPartitions: 1, ReplicationFactor: 1, ConfigEntries: map[string]*string{"retention.ms": &badValue}}, false))

	info, err := waitTopic(admin, topic, func(t topicInfo) bool {
		if t.Code != 0 || len(t.Partitions) != 3 {
			return false
		}
		for _, l := range t.Leaders {
			if l < 0 {
				return false
			}
		}
		return true
	})
	r["describe"] = info
	if err != nil {
		r["describe_error"] = errString(err)
	}
	for _, name := range []string{topic + "-v", topic + "-rf3", topic + "-badcfg"} {
		other, err := describeTopic(admin, name)
		if err != nil {
			fatalf("DescribeTopics %s: %v", name, err)
		}
		r["describe_"+name] = other.Code
	}

	topics, err := admin.ListTopics()
	if err != nil {
		fatalf("ListTopics: %v", err)
	}
	names := []string{}
	for name := range topics {
		names = append(names, name)
	}
	sort.Strings(names)
	r["list_names"] = names
	if d, ok := topics[topic]; ok {
		entries := map[string]string{}
		for k, v := range d.ConfigEntries {
			if v != nil {
				entries[k] = *v
			}
		}
		r["list_detail"] = map[string]interface{}{"partitions": d.NumPartitions,
			"replication_factor": d.ReplicationFactor, "config_entries": entries}
	}

	configs, err := describeConfig(admin, topic)
	if err != nil {
		fatalf("DescribeConfig: %v", err)
	}
	r["configs"] = configs

	altered := "654321"
	r["alter"] = kerrCode(admin.AlterConfig(sarama.TopicResource, topic,
		map[string]*string{"retention.ms": &altered}, false))
	configs, err = describeConfig(admin, topic)
	if err != nil {
		fatalf("DescribeConfig after AlterConfig: %v", err)
	}
	r["configs_after_alter"] = map[string]configValue{"retention.ms": configs["retention.ms"]}

	r["create_partitions"] = kerrCode(admin.CreatePartitions(topic, 5, nil, false))
	info, err = waitTopic(admin, topic, func(t topicInfo) bool { return len(t.Partitions) == 5 })
	r["describe_after_create_partitions"] = info
	r["create_partitions_fewer"] = kerrCode(admin.CreatePartitions(topic, 2, nil, false))

	r["delete"] = kerrCode(admin.DeleteTopic(topic))
	info, _ = waitTopic(admin, topic, func(t topicInfo) bool {
		return t.Code == int(sarama.ErrUnknownTopicOrPartition)
	})
	r["describe_after_delete"] = info.Code
	topics, err = admin.ListTopics()
	if err != nil {
		fatalf("ListTopics after delete: %v", err)
	}
	_, listed := topics[topic]
	r["listed_after_delete"] = listed
	r["delete_again"] = kerrCode(admin.DeleteTopic(topic))
	return r
}

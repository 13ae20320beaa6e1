// sarama-client: drives a Kafka broker with sarama (Debian's 1.22.1), one
// subcommand per scenario, for tests/clients/test_sarama.py.
//
//	sarama-client produce-consume --bootstrap H:P --topic T [--version 2.1.0]
//	              [--compression none|gzip|snappy|lz4|zstd] [--batch N] [--single N]
//	              [--topic-config key=value]
//	sarama-client idempotent      --bootstrap H:P --topic T [--count N]
//	sarama-client admin           --bootstrap H:P --topic T
//	sarama-client group           --bootstrap H:P --topic T --group G
//	sarama-client acls            --bootstrap H:P --topic T --group G --prefix P
//	              --sasl-user admin=PASSWORD --sasl-user alice=PASSWORD
//
// Each prints one JSON object on stdout (its last line) and exits 0 once the
// scenario ran to its end; the test asserts on the object. A step that fails
// in a way the scenario does not expect makes the program print
// {"fatal": "..."} and exit 1. Every wait has a deadline; nothing sleeps to
// synchronise.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/Shopify/sarama"
)

// stepTimeout bounds every wait for the broker (a loaded 2-core machine).
const stepTimeout = 30 * time.Second

type common struct {
	bootstrap string
	topic     string
	configs   map[string]*string // of the topics the scenario creates
	version   sarama.KafkaVersion
	verbose   bool
	users     map[string]*string // --sasl-user name=password
	user      string             // SASL/PLAIN as this user, when set
	password  string
}

func fatalf(format string, args ...interface{}) {
	emit(map[string]interface{}{"fatal": fmt.Sprintf(format, args...)})
	os.Exit(1)
}

func emit(v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "json: %v\n", err)
		os.Exit(2)
	}
	fmt.Println(string(b))
}

// newConfig is the base configuration of every client: an explicit protocol
// version, a client id, and retries/timeouts generous enough for a loaded host.
func newConfig(c *common) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = c.version
	cfg.ClientID = "samsa-sarama-test"
	cfg.Net.DialTimeout = stepTimeout
	cfg.Net.ReadTimeout = stepTimeout
	cfg.Net.WriteTimeout = stepTimeout
	cfg.Metadata.Retry.Max = 10
	cfg.Metadata.Retry.Backoff = 100 * time.Millisecond
	cfg.Producer.Retry.Backoff = 100 * time.Millisecond
	cfg.Producer.Timeout = stepTimeout
	cfg.Consumer.Retry.Backoff = 100 * time.Millisecond
	cfg.Consumer.MaxWaitTime = 100 * time.Millisecond
	cfg.Admin.Timeout = stepTimeout
	if c.user != "" {
		cfg.Net.SASL.Enable = true
		cfg.Net.SASL.Mechanism = sarama.SASLTypePlaintext
		cfg.Net.SASL.Handshake = true
		cfg.Net.SASL.User = c.user
		cfg.Net.SASL.Password = c.password
	}
	return cfg
}

// kerrCode is the Kafka error code behind err, or -1 when it carries none.
func kerrCode(err error) int {
	switch e := err.(type) {
	case nil:
		return 0
	case sarama.KError:
		return int(e)
	case *sarama.TopicError:
		return int(e.Err)
	case *sarama.TopicPartitionError:
		return int(e.Err)
	case *sarama.ProducerError:
		return kerrCode(e.Err)
	case sarama.ProducerErrors:
		if len(e) > 0 {
			return kerrCode(e[0].Err)
		}
	case *sarama.ConsumerError:
		return kerrCode(e.Err)
	}
	return -1
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// createTopic creates topic with its own admin client (CreateTopics v2), so
// that a scenario's protocol version only governs the scenario's own traffic.
func createTopic(c *common, topic string, partitions int32) {
	cc := *c
	cc.version = sarama.V2_1_0_0
	admin, err := sarama.NewClusterAdmin([]string{c.bootstrap}, newConfig(&cc))
	if err != nil {
		fatalf("admin client: %v", err)
	}
	defer admin.Close()
	err = admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: partitions, ReplicationFactor: 1,
		ConfigEntries: c.configs}, false)
	if err != nil {
		fatalf("CreateTopic %s: %v", topic, err)
	}
}

// waitPartitions polls the metadata of topic until it lists n partitions,
// each with a leader (CreateTopics may answer before the partitions serve).
func waitPartitions(client sarama.Client, topic string, n int) {
	deadline := time.Now().Add(stepTimeout)
	for {
		err := client.RefreshMetadata(topic)
		if err == nil {
			parts, perr := client.Partitions(topic)
			ok := perr == nil && len(parts) == n
			for _, p := range parts {
				if _, lerr := client.Leader(topic, p); lerr != nil {
					ok = false
				}
			}
			if ok {
				return
			}
		}
		if time.Now().After(deadline) {
			fatalf("topic %s did not get %d led partitions within %v (last error %v)", topic, n, stepTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type configFlag map[string]*string

func (f configFlag) String() string { return "" }

func (f configFlag) Set(kv string) error {
	i := strings.IndexByte(kv, '=')
	if i <= 0 {
		return fmt.Errorf("want key=value, got %q", kv)
	}
	v := kv[i+1:]
	f[kv[:i]] = &v
	return nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sarama-client produce-consume|idempotent|admin|group|acls [flags]")
		os.Exit(2)
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	c := &common{}
	var version string
	fs.StringVar(&c.bootstrap, "bootstrap", "127.0.0.1:9092", "broker address")
	fs.StringVar(&c.topic, "topic", "sarama-test", "topic")
	fs.StringVar(&version, "version", "2.1.0", "sarama Config.Version (Kafka version the client assumes)")
	fs.BoolVar(&c.verbose, "verbose", false, "sarama's log on stderr")
	compression := fs.String("compression", "none", "produce-consume: none|gzip|snappy|lz4|zstd")
	batch := fs.Int("batch", 20, "produce-consume: records sent in one SendMessages")
	single := fs.Int("single", 5, "produce-consume: records then sent one SendMessage each")
	count := fs.Int("count", 200, "idempotent: records")
	group := fs.String("group", "sarama-group", "group, acls: group id")
	prefix := fs.String("prefix", "sarama-acl-", "acls: the prefix of the PREFIXED ACLs")
	c.users = map[string]*string{}
	fs.Var(configFlag(c.users), "sasl-user", "name=password: a SASL/PLAIN user (repeatable)")
	c.configs = map[string]*string{}
	fs.Var(configFlag(c.configs), "topic-config", "key=value: a config of the created topic (repeatable)")
	_ = fs.Parse(os.Args[2:])

	v, err := sarama.ParseKafkaVersion(version)
	if err != nil {
		fatalf("--version: %v", err)
	}
	c.version = v
	if c.verbose {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Ltime|log.Lmicroseconds)
	}

	switch cmd {
	case "produce-consume":
		codec, ok := codecs[strings.ToLower(*compression)]
		if !ok {
			fatalf("--compression %q: one of none, gzip, snappy, lz4, zstd", *compression)
		}
		emit(produceConsume(c, codec, *batch, *single))
	case "idempotent":
		emit(idempotent(c, *count))
	case "admin":
		emit(adminScenario(c))
	case "group":
		emit(groupScenario(c, *group))
	case "acls":
		emit(aclsScenario(c, *group, *prefix))
	default:
		fatalf("unknown subcommand %q", cmd)
	}
}

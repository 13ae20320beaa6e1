package main

import (
	"fmt"
	"time"

	"github.com/Shopify/sarama"
)

var codecs = map[string]sarama.CompressionCodec{
	"none":   sarama.CompressionNone,
	"gzip":   sarama.CompressionGZIP,
	"snappy": sarama.CompressionSnappy,
	"lz4":    sarama.CompressionLZ4,
	"zstd":   sarama.CompressionZSTD,
}

// baseTimestamp is the CreateTime of the first record each scenario sends
// (record i gets baseTimestamp + i ms), so that timestamps can be checked.
var baseTimestamp = time.Unix(1700000000, 0)

type record struct {
	Partition   int32       `json:"partition"`
	Offset      int64       `json:"offset"`
	Key         string      `json:"key"`
	Value       string      `json:"value"`
	Headers     [][2]string `json:"headers"`
	TimestampMs int64       `json:"timestamp_ms"`
}

// produced is where the broker put a record, as the producer was told.
type produced struct {
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Key       string `json:"key,omitempty"`
}

func millis(t time.Time) int64 { return t.UnixNano() / int64(time.Millisecond) }

func fromConsumer(m *sarama.ConsumerMessage) record {
	r := record{Partition: m.Partition, Offset: m.Offset, Key: string(m.Key), Value: string(m.Value),
		Headers: [][2]string{}, TimestampMs: millis(m.Timestamp)}
	for _, h := range m.Headers {
		r.Headers = append(r.Headers, [2]string{string(h.Key), string(h.Value)})
	}
	return r
}

// testMessage is record i of a scenario: key k-i, a value long enough to be
// worth compressing, and (message format v2 only) two headers.
func testMessage(c *common, topic string, i int) *sarama.ProducerMessage {
	msg := &sarama.ProducerMessage{
		Topic:     topic,
		Partition: 0,
		Key:       sarama.StringEncoder(fmt.Sprintf("k-%d", i)),
		Value:     sarama.StringEncoder(fmt.Sprintf("value-%d-%s", i, "abcdefghij abcdefghij abcdefghij")),
		Timestamp: baseTimestamp.Add(time.Duration(i) * time.Millisecond),
	}
	if c.version.IsAtLeast(sarama.V0_11_0_0) {
		msg.Headers = []sarama.RecordHeader{
			{Key: []byte("seq"), Value: []byte(fmt.Sprint(i))},
			{Key: []byte("client"), Value: []byte("sarama")},
		}
	}
	return msg
}

// consumeFrom reads partition of topic from offset until want records came or
// the deadline passed; it also returns the partition's high watermark as the
// consumer last saw it.
func consumeFrom(c *common, topic string, partition int32, offset int64, want int) ([]record, int64, error) {
	cfg := newConfig(c)
	cfg.Consumer.Return.Errors = true
	consumer, err := sarama.NewConsumer([]string{c.bootstrap}, cfg)
	if err != nil {
		return nil, -1, fmt.Errorf("NewConsumer: %v", err)
	}
	defer consumer.Close()
	pc, err := consumer.ConsumePartition(topic, partition, offset)
	if err != nil {
		return nil, -1, fmt.Errorf("ConsumePartition: %v", err)
	}
	defer pc.Close()
	out := []record{}
	deadline := time.After(stepTimeout)
	for len(out) < want {
		select {
		case m := <-pc.Messages():
			out = append(out, fromConsumer(m))
		case cerr := <-pc.Errors():
			return out, pc.HighWaterMarkOffset(), fmt.Errorf("consumer: %v", cerr)
		case <-deadline:
			return out, pc.HighWaterMarkOffset(), fmt.Errorf("got %d of %d records within %v", len(out), want, stepTimeout)
		}
	}
	return out, pc.HighWaterMarkOffset(), nil
}

// produceConsume: a SyncProducer (acks=all, the given codec) sends `batch`
// records in one SendMessages, then `single` records one SendMessage each, to
// partition 0 of a new topic; a PartitionConsumer reads them back from
// OffsetOldest. With an old Version the producer writes message format v0/v1
// (Produce v0-v2), and the consumer uses Fetch v0-v3.
func produceConsume(c *common, codec sarama.CompressionCodec, batch, single int) map[string]interface{} {
	createTopic(c, c.topic, 1)
	// The SendMessages producer flushes only once it holds `batch` records
	// (Flush.Messages, no timer): one produce request, one batch. The other
	// flushes each record at once.
	batchProducer := newSyncProducer(c, codec, batch)
	defer batchProducer.close()
	singleProducer := newSyncProducer(c, codec, 0)
	defer singleProducer.close()

	result := map[string]interface{}{"version": c.version.String(), "compression": codec.String()}
	var msgs []*sarama.ProducerMessage
	for i := 0; i < batch; i++ {
		msgs = append(msgs, testMessage(c, c.topic, i))
	}
	out := []produced{}
	if err := batchProducer.SendMessages(msgs); err != nil {
		result["produce_error"] = errString(err)
		result["produce_error_code"] = kerrCode(err)
		return result
	}
	for i := batch; i < batch+single; i++ {
		msg := testMessage(c, c.topic, i)
		if _, _, err := singleProducer.SendMessage(msg); err != nil {
			result["produce_error"] = errString(err)
			result["produce_error_code"] = kerrCode(err)
			return result
		}
		msgs = append(msgs, msg)
	}
	for _, m := range msgs {
		out = append(out, produced{Partition: m.Partition, Offset: m.Offset})
	}
	result["produced"] = out

	consumed, hwm, err := consumeFrom(c, c.topic, 0, sarama.OffsetOldest, batch+single)
	result["consumed"] = consumed
	result["high_watermark"] = hwm
	if err != nil {
		result["consume_error"] = err.Error()
	}
	return result
}

type syncProducer struct {
	sarama.SyncProducer
	client sarama.Client
}

func (p syncProducer) close() {
	_ = p.SyncProducer.Close()
	_ = p.client.Close()
}

// newSyncProducer: acks=all, codec, partition chosen by the message; with
// flushMessages > 0 it sends only once it holds that many records.
func newSyncProducer(c *common, codec sarama.CompressionCodec, flushMessages int) syncProducer {
	cfg := newConfig(c)
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Compression = codec
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Retry.Max = 5
	cfg.Producer.Flush.Messages = flushMessages
	client, err := sarama.NewClient([]string{c.bootstrap}, cfg)
	if err != nil {
		fatalf("NewClient: %v", err)
	}
	waitPartitions(client, c.topic, 1)
	producer, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		fatalf("NewSyncProducer: %v", err)
	}
	return syncProducer{producer, client}
}

// idempotent: an idempotent AsyncProducer (acks=all, one request in flight)
// sends count records to partition 0; the successes come back in order with
// their offsets, and a consumer reads the partition back.
func idempotent(c *common, count int) map[string]interface{} {
	createTopic(c, c.topic, 1)
	cfg := newConfig(c)
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Net.MaxOpenRequests = 1
	cfg.Producer.Retry.Max = 5
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	// Several batches, not one: at most 25 records per request.
	cfg.Producer.Flush.MaxMessages = 25
	client, err := sarama.NewClient([]string{c.bootstrap}, cfg)
	if err != nil {
		fatalf("NewClient: %v", err)
	}
	defer client.Close()
	waitPartitions(client, c.topic, 1)
	producer, err := sarama.NewAsyncProducerFromClient(client)
	if err != nil {
		fatalf("NewAsyncProducer: %v", err)
	}
	result := map[string]interface{}{"version": c.version.String()}

	// Feed the input while draining the outputs: the producer may block on
	// Input() until successes are read.
	go func() {
		for i := 0; i < count; i++ {
			producer.Input() <- testMessage(c, c.topic, i)
		}
	}()
	successes := []produced{}
	errs := []string{}
	deadline := time.After(stepTimeout)
loop:
	for len(successes)+len(errs) < count {
		select {
		case m := <-producer.Successes():
			key, _ := m.Key.Encode()
			successes = append(successes, produced{Partition: m.Partition, Offset: m.Offset, Key: string(key)})
		case perr := <-producer.Errors():
			errs = append(errs, fmt.Sprintf("%v (code %d)", perr.Err, kerrCode(perr.Err)))
		case <-deadline:
			errs = append(errs, fmt.Sprintf("%d of %d acknowledgements within %v", len(successes), count, stepTimeout))
			break loop
		}
	}
	producer.AsyncClose()
	for range producer.Successes() {
	}
	for range producer.Errors() {
	}
	result["successes"] = successes
	result["produce_errors"] = errs

	consumed, hwm, err := consumeFrom(c, c.topic, 0, sarama.OffsetOldest, count)
	result["consumed"] = consumed
	result["high_watermark"] = hwm
	if err != nil {
		result["consume_error"] = err.Error()
	}
	return result
}

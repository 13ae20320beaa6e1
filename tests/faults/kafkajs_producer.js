// One kafkajs producer of the fault runs (tests/faults/workload.py,
// KafkajsProducerWorker): idempotent, acks=-1, one value "<name>-<seq>" per
// send, to the topic's partitions in turn, at most `rate` a second, until
// stdin closes or `limit` values were sent. Prints one JSON line per event:
//   {"ev": "send" | "ack" | "fail", "producer", "seq", "value", "partition",
//    "offset" (ack), "error" (fail)}
// A send that fails ends the producer session: a new producer (a new
// producer id, named <name>.<n>) goes on, so that one session's sends are
// ordered by the broker's sequence checks.
'use strict'
const { Kafka, logLevel } = require('kafkajs')

const [brokers, topic, partitionsArg, name, rateArg, limitArg] = process.argv.slice(2)
const partitions = Number(partitionsArg)
const rate = Number(rateArg)
const limit = Number(limitArg)

let stopping = false
process.stdin.on('end', () => { stopping = true })
process.stdin.on('close', () => { stopping = true })
process.stdin.resume()

const emit = (e) => process.stdout.write(JSON.stringify(e) + '\n')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const kafka = new Kafka({
  clientId: name,
  brokers: brokers.split(','),
  logLevel: logLevel.NOTHING,
  connectionTimeout: 3000,
  requestTimeout: 10000,
  // Longer than any fault and the recovery after it (as the librdkafka
  // producers' message.timeout.ms).
  retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 2000 },
})

async function main () {
  const started = Date.now()
  let session = 0
  let producer = null
  let pname = name
  for (let seq = 0; seq < limit && !stopping; seq++) {
    if (producer === null) {
      pname = session === 0 ? name : `${name}.${session}`
      session++
      producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1,
        allowAutoTopicCreation: false })
      try {
        await producer.connect()
      } catch (e) {
        producer = null
        seq--
        await sleep(500)
        continue
      }
    }
    const ahead = seq / rate * 1000 - (Date.now() - started)
    if (ahead > 0) await sleep(ahead)
    const partition = seq % partitions
    const value = `${pname}-${seq}`
    emit({ ev: 'send', producer: pname, seq, value, partition })
    try {
      const res = await producer.send({ topic, acks: -1, messages: [{ value, partition }] })
      emit({ ev: 'ack', producer: pname, seq, value, partition: res[0].partition,
        offset: Number(res[0].baseOffset) })
    } catch (e) {
      emit({ ev: 'fail', producer: pname, seq, value, partition, error: String(e.message || e) })
      try { await producer.disconnect() } catch (_) {}
      producer = null
    }
  }
  if (producer !== null) {
    try { await producer.disconnect() } catch (_) {}
  }
}

main().then(() => process.exit(0), (e) => {
  process.stderr.write(`kafkajs producer: ${e.stack || e}\n`)
  process.exit(1)
})

'use strict'
// kafkajs scenarios against a Samsa broker, run by tests/clients/test_kafkajs.py:
//
//   node scenarios.js SCENARIO BOOTSTRAP NAME [ARGS_JSON]
//
// NAME prefixes every topic, group and transactional id the scenario makes.
// Each scenario prints one line of JSON on stdout, {"ok": true, ...} with what
// it observed (pytest asserts on it), or {"ok": false, "error": ...} and exits
// non-zero. kafkajs logs at ERROR level only, as JSON lines on stderr, which
// pytest shows when a test fails. A watchdog ends the process (exit 3) before
// pytest's own timeout, so a stuck client reports where it was.
//
// Nothing here sleeps to synchronise: waits poll a condition against a deadline.

const crypto = require('crypto')
const fs = require('fs')
const net = require('net')
const {
  Kafka,
  logLevel,
  CompressionTypes,
  ConfigResourceTypes,
  AssignerProtocol,
  AclResourceTypes,
  AclOperationTypes,
  AclPermissionTypes,
  ResourcePatternTypes,
} = require('kafkajs')

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1'

const [scenarioName, bootstrap, NAME, argsJson] = process.argv.slice(2)
const ARGS = argsJson ? JSON.parse(argsJson) : {}
const WATCHDOG_MS = Number(process.env.KAFKAJS_SCENARIO_TIMEOUT_MS || 50000)
let step = 'start'
let stepStart = Date.now()
const timings = {} // ms spent in each step, reported with the result
function at(name) {
  const now = Date.now()
  timings[step] = (timings[step] || 0) + (now - stepStart)
  step = name
  stepStart = now
}

// --- output -------------------------------------------------------------------
let finished = false
function finish(code, result) {
  if (finished) return
  finished = true
  clearTimeout(watchdog)
  at('end')
  result.timings = timings
  result.requests = requests
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(code))
}

const watchdog = setTimeout(
  () => finish(3, { ok: false, error: `watchdog: still running after ${WATCHDOG_MS} ms`, step }),
  WATCHDOG_MS
)

const logCreator = () => ({ namespace, level, label, log }) => {
  const { message, ...extra } = log
  process.stderr.write(
    JSON.stringify({ kafkajs: label, namespace, message, ...extra, step }) + '\n'
  )
}

// Every request kafkajs sent, as "ApiName vN" -> count (reported with the
// result: which protocol versions the client picked from ApiVersions).
const requests = {}
function track(client) {
  client.on(client.events.REQUEST, ({ payload }) => {
    const k = `${payload.apiName} v${payload.apiVersion}`
    requests[k] = (requests[k] || 0) + 1
  })
  return client
}

function makeKafka(clientId, opts = {}) {
  const kafka = new Kafka({
    clientId,
    brokers: [opts.bootstrap || bootstrap],
    logLevel: opts.logLevel || logLevel.ERROR,
    logCreator: opts.logCreator || logCreator,
    connectionTimeout: opts.connectionTimeout || 10000,
    requestTimeout: opts.requestTimeout || 30000,
    retry: { initialRetryTime: 100, maxRetryTime: 2000, retries: 8, ...(opts.retry || {}) },
    ...(opts.ssl ? { ssl: opts.ssl } : {}),
    ...(opts.sasl ? { sasl: opts.sasl } : {}),
    ...(opts.socketFactory ? { socketFactory: opts.socketFactory } : {}),
    ...(opts.reauthenticationThreshold !== undefined
      ? { reauthenticationThreshold: opts.reauthenticationThreshold }
      : {}),
  })
  for (const kind of ['admin', 'producer', 'consumer']) {
    const make = kafka[kind].bind(kafka)
    kafka[kind] = (...a) => track(make(...a))
  }
  return kafka
}

// --- helpers ------------------------------------------------------------------
async function waitFor(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await condition()
    if (value) return value
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

function sha(buf) {
  return crypto.createHash('sha256').update(buf).digest('hex').slice(0, 16)
}

// A value or key as JSON: null, a utf-8 string, or {len, sha} for anything
// large or not printable.
function norm(v) {
  if (v === null || v === undefined) return null
  const buf = Buffer.isBuffer(v) ? v : Buffer.from(String(v))
  const text = buf.toString('utf8')
  if (buf.length <= 200 && Buffer.from(text).equals(buf) && /^[\x20-\x7e]*$/.test(text)) return text
  return { len: buf.length, sha: sha(buf) }
}

function normHeaders(headers) {
  const out = {}
  for (const [k, v] of Object.entries(headers || {})) {
    out[k] = Array.isArray(v) ? v.map(norm) : norm(v)
  }
  return out
}

// A consumed message as JSON.
function got(topic, partition, message) {
  return {
    topic,
    partition,
    offset: Number(message.offset),
    key: norm(message.key),
    value: norm(message.value),
    headers: normHeaders(message.headers),
    timestamp: message.timestamp,
  }
}

// Runs `consumer` (already connected and subscribed), pushing every message it
// is handed onto `sink` (returned).
function collect(consumer, sink = [], runOpts = {}) {
  consumer.run({
    ...runOpts,
    eachMessage: async ({ topic, partition, message }) => {
      sink.push({ ...got(topic, partition, message), batch: message.batchContext })
    },
  }).catch(e => fail(e))
  return sink
}

async function createTopic(admin, topic, numPartitions, configEntries) {
  const created = await admin.createTopics({
    topics: [{ topic, numPartitions, replicationFactor: 1, configEntries }],
    waitForLeaders: true,
  })
  if (created !== true) throw new Error(`createTopics(${topic}) answered ${created}`)
}

async function highWatermarks(admin, topic) {
  const offsets = await admin.fetchTopicOffsets(topic)
  const out = {}
  for (const o of offsets) out[o.partition] = { low: Number(o.low), high: Number(o.high) }
  return out
}

function groupByPartition(messages) {
  const out = {}
  for (const m of messages) (out[m.partition] = out[m.partition] || []).push(m)
  return out
}

// --- scenario 1: acks=-1, no compression and gzip, keys and headers -------------
async function produceConsume() {
  const kafka = makeKafka(`${NAME}-client`)
  const topic = `${NAME}-t`
  const admin = kafka.admin()
  await admin.connect()
  at('create topic')
  await createTopic(admin, topic, 2)

  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  const baseTs = Date.now() - 3600 * 1000
  const binary = Buffer.from([...Array(256).keys()])
  const big = Buffer.from('samsa kafkajs gzip '.repeat(6000)) // ~114 KB, compresses well
  const plan = [
    { partition: 0, compression: 'none', n: 5 },
    { partition: 0, compression: 'gzip', n: 6 },
    { partition: 1, compression: 'gzip', n: 4 },
    { partition: 1, compression: 'none', n: 3 },
    { partition: 0, compression: 'none', n: 2 },
  ]
  const expected = []
  const sends = []
  let seq = 0
  at('produce')
  for (const [b, { partition, compression, n }] of plan.entries()) {
    const messages = []
    for (let i = 0; i < n; i++, seq++) {
      let value = `value-${b}-${i}`
      if (i === 1) value = binary
      if (i === 2 && compression === 'gzip') value = big
      if (i === 3) value = null // a tombstone
      const headers = { 'h-batch': String(b), 'h-codec': compression }
      if (i % 2 === 0) headers.multi = ['first', 'second'] // one key, two headers
      if (i === 4) headers.bin = Buffer.from([0, 255, 1, 254])
      messages.push({
        key: i === 0 && b === 4 ? null : `key-${b}-${i}`,
        value,
        headers,
        partition,
        timestamp: String(baseTs + seq),
      })
    }
    const res = await producer.send({
      topic,
      acks: -1,
      compression: compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None,
      messages,
    })
    sends.push(
      res.map(r => ({ partition: r.partition, errorCode: r.errorCode, baseOffset: Number(r.baseOffset) }))
    )
    for (const m of messages) {
      expected.push({
        topic,
        partition,
        key: norm(m.key),
        value: norm(m.value),
        headers: normHeaders(m.headers),
        timestamp: m.timestamp,
      })
    }
  }
  await producer.disconnect()

  at('consume')
  const consumer = kafka.consumer({
    groupId: `${NAME}-g`,
    heartbeatInterval: 500,
    sessionTimeout: 10000,
    maxWaitTimeInMs: 250,
  })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const received = collect(consumer)
  await waitFor(() => received.length >= expected.length, 30000, `${expected.length} messages`)
  // The high watermarks say the log holds no more than what was sent (a
  // duplicate would also show as an extra message received).
  const watermarks = await highWatermarks(admin, topic)
  await consumer.disconnect()
  await admin.disconnect()
  for (const m of received) delete m.batch
  return { sends, expected, received, watermarks }
}

// --- scenario 2: idempotent producer, responses lost on the way back ------------
// A proxy between kafkajs and the broker (the broker advertises the proxy's
// address) that, for the Produce requests whose ordinal (counted from 1) is in
// `dropProduce`, forwards the request, swallows the broker's response and cuts
// the connection: the broker has appended, the producer never heard, retries.
function startDropProxy(listenPort, upstreamPort) {
  const state = { produceRequests: 0, dropped: 0, dropProduce: new Set(), connections: 0 }
  const server = net.createServer(client => {
    state.connections++
    const upstream = net.connect(upstreamPort, '127.0.0.1')
    const pending = new Map() // correlation id -> drop the response?
    let reqBuf = Buffer.alloc(0)
    let resBuf = Buffer.alloc(0)
    const cut = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', cut)
    upstream.on('error', cut)
    client.on('close', cut)
    upstream.on('close', cut)
    client.on('data', chunk => {
      reqBuf = Buffer.concat([reqBuf, chunk])
      while (reqBuf.length >= 4 && reqBuf.length >= 4 + reqBuf.readInt32BE(0)) {
        const size = reqBuf.readInt32BE(0)
        const frame = reqBuf.subarray(0, 4 + size)
        reqBuf = reqBuf.subarray(4 + size)
        const apiKey = frame.readInt16BE(4)
        const correlationId = frame.readInt32BE(8)
        let drop = false
        if (apiKey === 0) {
          state.produceRequests++
          drop = state.dropProduce.has(state.produceRequests)
        }
        pending.set(correlationId, drop)
        upstream.write(frame)
      }
    })
    upstream.on('data', chunk => {
      resBuf = Buffer.concat([resBuf, chunk])
      while (resBuf.length >= 8 && resBuf.length >= 4 + resBuf.readInt32BE(0)) {
        const size = resBuf.readInt32BE(0)
        const frame = resBuf.subarray(0, 4 + size)
        resBuf = resBuf.subarray(4 + size)
        const correlationId = frame.readInt32BE(4)
        const drop = pending.get(correlationId)
        pending.delete(correlationId)
        if (drop) {
          state.dropped++
          cut()
          return
        }
        client.write(frame)
      }
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(listenPort, '127.0.0.1', () => resolve({ server, state }))
  })
}

async function idempotent() {
  const { proxyPort, brokerPort } = ARGS
  const { server, state } = await startDropProxy(proxyPort, brokerPort)
  const kafka = makeKafka(`${NAME}-client`, { bootstrap: `127.0.0.1:${proxyPort}` })
  const topic = `${NAME}-t`
  const admin = kafka.admin()
  await admin.connect()
  at('create topic')
  await createTopic(admin, topic, 2)

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
  await producer.connect()
  const sent = { 0: [], 1: [] }
  const sendResults = []
  const send = async (partition, values, compression) => {
    const res = await producer.send({
      topic,
      acks: -1,
      compression,
      messages: values.map(value => ({ key: `k${partition}`, value, partition })),
    })
    sent[partition].push(...values)
    sendResults.push(...res.map(r => ({ partition: r.partition, baseOffset: Number(r.baseOffset), values })))
  }

  // Phase 1: sequential sends, several of whose responses are lost.
  at('produce (responses lost)')
  state.produceRequests = 0
  state.dropProduce = new Set(ARGS.dropProduce || [2, 5, 6, 11])
  for (let i = 0; i < 16; i++) {
    const partition = i % 3 === 2 ? 1 : 0
    const values = Array.from({ length: 5 }, (_, j) => `seq-${i}-${j}`)
    await send(partition, values, i % 2 ? CompressionTypes.GZIP : CompressionTypes.None)
  }
  const produceRequests = state.produceRequests
  // Phase 2: concurrent sends (no losses); kafkajs serialises them per broker.
  at('produce (concurrent)')
  state.dropProduce = new Set()
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      send(0, Array.from({ length: 4 }, (_, j) => `conc-${i}-${j}`), CompressionTypes.None)
    )
  )
  await producer.disconnect()

  at('consume')
  const total = sent[0].length + sent[1].length
  const consumer = kafka.consumer({
    groupId: `${NAME}-g`,
    heartbeatInterval: 500,
    sessionTimeout: 10000,
    maxWaitTimeInMs: 250,
  })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const received = collect(consumer)
  await waitFor(() => received.length >= total, 30000, `${total} messages`)
  const watermarks = await highWatermarks(admin, topic)
  await consumer.disconnect()
  await admin.disconnect()
  server.close()
  const byPartition = groupByPartition(received)
  const out = {}
  for (const p of [0, 1]) {
    out[p] = (byPartition[p] || []).map(m => ({
      offset: m.offset,
      value: m.value,
      producerId: m.batch.producerId,
      producerEpoch: m.batch.producerEpoch,
      firstSequence: m.batch.firstSequence,
      firstOffset: Number(m.batch.firstOffset),
    }))
  }
  return {
    sent,
    received: out,
    sendResults,
    watermarks,
    dropped: state.dropped,
    produceRequests,
    connections: state.connections,
  }
}

// --- scenario 3: admin ------------------------------------------------------------
async function adminScenario() {
  const kafka = makeKafka(`${NAME}-client`)
  const admin = kafka.admin()
  await admin.connect()
  const a = `${NAME}-a`
  const b = `${NAME}-b`
  const r = {}

  at('createTopics')
  r.created = await admin.createTopics({
    topics: [
      {
        topic: a,
        numPartitions: 3,
        replicationFactor: 1,
        configEntries: [
          { name: 'retention.ms', value: '3600000' },
          { name: 'cleanup.policy', value: 'delete' },
          { name: 'max.message.bytes', value: '200000' },
        ],
      },
      { topic: b, numPartitions: 1, replicationFactor: 1 },
    ],
    waitForLeaders: true,
  })
  at('createTopics (exists)')
  r.createdAgain = await admin.createTopics({ topics: [{ topic: a, numPartitions: 3 }] })
  // With the error surfaced rather than folded into `false`: validateOnly on an
  // existing topic plus a new one with an invalid partition count.
  try {
    await admin.createTopics({
      topics: [
        { topic: a, numPartitions: 3 },
        { topic: `${NAME}-bad`, numPartitions: 0 },
      ],
    })
    r.createMixed = 'no error'
  } catch (e) {
    r.createMixed = (e.errors || [e]).map(x => x.type).sort()
  }

  at('listTopics')
  r.listed = (await admin.listTopics()).filter(t => t.startsWith(NAME)).sort()

  at('fetchTopicMetadata')
  const md = await admin.fetchTopicMetadata({ topics: [a, b] })
  r.metadata = md.topics.map(t => ({
    name: t.name,
    partitions: t.partitions
      .map(p => ({ id: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr, error: p.partitionErrorCode }))
      .sort((x, y) => x.id - y.id),
  }))

  at('describeConfigs')
  const describe = async () => {
    const res = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: a,
          configNames: ['retention.ms', 'cleanup.policy', 'max.message.bytes', 'segment.bytes'],
        },
      ],
    })
    const out = {}
    for (const res1 of res.resources) {
      out.errorCode = res1.errorCode
      for (const c of res1.configEntries) {
        out[c.configName] = { value: c.configValue, isDefault: c.isDefault, source: c.configSource, readOnly: c.readOnly }
      }
    }
    return out
  }
  r.configs = await describe()
  const all = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: a }],
  })
  r.allConfigNames = all.resources[0].configEntries.map(c => c.configName).sort()

  at('createPartitions')
  await admin.createPartitions({ topicPartitions: [{ topic: a, count: 5 }] })
  r.partitionsAfter = await waitFor(
    async () => {
      const m = await admin.fetchTopicMetadata({ topics: [a] })
      const ids = m.topics[0].partitions.map(p => p.partitionId).sort()
      return ids.length === 5 ? ids : null
    },
    15000,
    '5 partitions in metadata'
  )
  try {
    await admin.createPartitions({ topicPartitions: [{ topic: a, count: 2 }] })
    r.shrink = 'no error'
  } catch (e) {
    r.shrink = e.type || e.name
  }

  at('produce')
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  // Timestamps 10 ms apart from baseTs, for ListOffsets by timestamp below.
  const baseTs = Date.now() - 3600 * 1000
  const p0 = await producer.send({
    topic: a,
    acks: -1,
    messages: [0, 1].map(i => ({ value: `p0-${i}`, partition: 0, timestamp: String(baseTs + 10 * i) })),
  })
  const p4 = await producer.send({
    topic: a,
    acks: -1,
    messages: [0, 1, 2].map(i => ({ value: `p4-${i}`, partition: 4, timestamp: String(baseTs + 10 * i) })),
  })
  r.produced = [...p0, ...p4].map(x => ({ partition: x.partition, baseOffset: Number(x.baseOffset), errorCode: x.errorCode }))
  await producer.disconnect()

  at('fetchTopicOffsets')
  r.offsets = await highWatermarks(admin, a)
  at('deleteTopicRecords')
  await admin.deleteTopicRecords({ topic: a, partitions: [{ partition: 4, offset: '2' }] })
  r.offsetsAfterDeleteRecords = await highWatermarks(admin, a)
  at('fetchTopicOffsetsByTimestamp')
  // The first offset whose timestamp is >= baseTs + 5 (kafkajs shows the high
  // watermark where the broker answers -1, no such record).
  const byTs = await admin.fetchTopicOffsetsByTimestamp(a, baseTs + 5)
  r.offsetsByTimestamp = Object.fromEntries(byTs.map(o => [o.partition, Number(o.offset)]))

  at('alterConfigs')
  // AlterConfigs (not incremental) replaces the topic's whole config set: what
  // is not named goes back to its default.
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      { type: ConfigResourceTypes.TOPIC, name: a, configEntries: [{ name: 'retention.ms', value: '7200000' }] },
    ],
  })
  r.configsAfterAlter = await describe()

  at('deleteTopics')
  await admin.deleteTopics({ topics: [a, b], timeout: 15000 })
  r.listedAfterDelete = await waitFor(
    async () => {
      const left = (await admin.listTopics()).filter(t => t.startsWith(NAME))
      return left.length === 0 ? left : null
    },
    15000,
    'topics gone from listTopics'
  )
  r.createdAfterDelete = await admin.createTopics({
    topics: [{ topic: a, numPartitions: 2, replicationFactor: 1 }],
    waitForLeaders: true,
  })
  r.offsetsRecreated = await highWatermarks(admin, a)
  await admin.disconnect()
  return r
}

// --- scenario 4: consumer group ------------------------------------------------------
async function groupScenario() {
  const kafka = makeKafka(`${NAME}-client`)
  const topic = `${NAME}-t`
  const groupId = `${NAME}-g`
  const admin = kafka.admin()
  await admin.connect()
  at('create topic')
  await createTopic(admin, topic, 4)
  const r = {}

  const consumerOpts = {
    groupId,
    heartbeatInterval: 300,
    sessionTimeout: 6000,
    rebalanceTimeout: 10000,
    maxWaitTimeInMs: 250,
  }
  const members = []
  const startMember = async name => {
    const consumer = kafka.consumer(consumerOpts)
    const m = { name, consumer, joins: [], messages: [], assignment: null, memberId: null }
    consumer.on(consumer.events.GROUP_JOIN, e => {
      m.memberId = e.payload.memberId
      m.assignment = (e.payload.memberAssignment[topic] || []).slice().sort()
      m.joins.push({ assignment: m.assignment, isLeader: e.payload.isLeader })
    })
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    // No auto-commit: the offsets the group holds are the ones committed here.
    collect(consumer, m.messages, { autoCommit: false })
    members.push(m)
    return m
  }

  at('two members join')
  const c1 = await startMember('c1')
  await waitFor(() => c1.assignment && c1.assignment.length === 4, 20000, 'c1 alone owns 4 partitions')
  r.c1Alone = c1.assignment
  const c2 = await startMember('c2')
  // The group is settled when both members' latest assignments split the four
  // partitions and the coordinator describes that same split.
  const settled = async () => {
    if (!c2.assignment || !c1.assignment) return null
    const union = [...c1.assignment, ...c2.assignment].sort()
    if (union.length !== 4 || new Set(union).size !== 4) return null
    const { groups } = await admin.describeGroups([groupId])
    const g = groups[0]
    if (g.state !== 'Stable' || g.members.length !== 2) return null
    return g
  }
  const described = await waitFor(settled, 30000, 'the group to settle with two members')
  r.assignments = { c1: c1.assignment, c2: c2.assignment }
  r.describeStable = {
    state: described.state,
    protocolType: described.protocolType,
    protocol: described.protocol,
    members: described.members
      .map(mm => ({
        memberId: mm.memberId,
        clientId: mm.clientId,
        assignment: ((AssignerProtocol.MemberAssignment.decode(mm.memberAssignment) || { assignment: {} }).assignment[topic] || [])
          .slice()
          .sort(),
        metadataTopics: (AssignerProtocol.MemberMetadata.decode(mm.memberMetadata) || { topics: [] }).topics,
      }))
      .sort((x, y) => (x.memberId < y.memberId ? -1 : 1)),
  }
  r.memberIds = { c1: c1.memberId, c2: c2.memberId }

  at('produce')
  // Produced once the split is settled, so each message is fetched by the
  // member that owns its partition.
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  for (let p = 0; p < 4; p++) {
    await producer.send({
      topic,
      acks: -1,
      messages: Array.from({ length: 5 }, (_, i) => ({ key: `p${p}`, value: `m-${p}-${i}`, partition: p })),
    })
  }
  await waitFor(() => c1.messages.length + c2.messages.length >= 20, 30000, '20 messages across c1 and c2')
  const slim = m => ({ partition: m.partition, offset: m.offset, value: m.value })
  r.consumed = { c1: c1.messages.map(slim), c2: c2.messages.map(slim) }

  at('commit')
  // Each member commits offset 3 (messages 0..2 processed) on its partitions;
  // messages 3 and 4 stay uncommitted.
  for (const m of [c1, c2]) {
    await m.consumer.commitOffsets(m.assignment.map(partition => ({ topic, partition, offset: '3' })))
  }
  r.committed = await admin.fetchOffsets({ groupId, topics: [topic] })
  r.committed = Object.fromEntries(r.committed[0].partitions.map(p => [p.partition, Number(p.offset)]))

  at('disconnect')
  await c1.consumer.disconnect()
  await c2.consumer.disconnect()
  const empty = await waitFor(
    async () => {
      const g = (await admin.describeGroups([groupId])).groups[0]
      return g.state === 'Empty' ? g : null
    },
    15000,
    'the group to be Empty'
  )
  r.describeEmpty = { state: empty.state, members: empty.members.length }
  const { groups } = await admin.listGroups()
  r.listGroups = groups.filter(g => g.groupId.startsWith(NAME))

  at('resume')
  const c3 = await startMember('c3')
  await waitFor(() => c3.messages.length >= 8, 30000, 'c3 to consume 8 messages')
  r.resumed = c3.messages.map(slim)
  await c3.consumer.commitOffsets([0, 1, 2, 3].map(partition => ({ topic, partition, offset: '5' })))
  await c3.consumer.disconnect()

  at('resetOffsets')
  await waitFor(
    async () => (await admin.describeGroups([groupId])).groups[0].state === 'Empty',
    15000,
    'the group to be Empty after c3'
  )
  r.committedAfterC3 = Object.fromEntries(
    (await admin.fetchOffsets({ groupId, topics: [topic] }))[0].partitions.map(p => [p.partition, Number(p.offset)])
  )
  // (about 5 s inside kafkajs: its helper consumer pauses every partition, and
  // a consumer with nothing to fetch sleeps its default maxWaitTime, 5000 ms)
  await admin.resetOffsets({ groupId, topic, earliest: true })
  r.committedAfterReset = Object.fromEntries(
    (await admin.fetchOffsets({ groupId, topics: [topic] }))[0].partitions.map(p => [p.partition, Number(p.offset)])
  )
  const c4 = await startMember('c4')
  await waitFor(() => c4.messages.length >= 20, 30000, 'c4 to consume 20 messages')
  r.afterReset = c4.messages.map(slim)
  await c4.consumer.disconnect()

  at('deleteGroups')
  await waitFor(
    async () => (await admin.describeGroups([groupId])).groups[0].state === 'Empty',
    15000,
    'the group to be Empty after c4'
  )
  r.deleteGroups = (await admin.deleteGroups([groupId])).map(x => ({ groupId: x.groupId, errorCode: x.errorCode }))
  r.listGroupsAfterDelete = (await admin.listGroups()).groups.filter(g => g.groupId.startsWith(NAME))
  await producer.disconnect()
  await admin.disconnect()
  return r
}

// --- scenario 5: transactions ---------------------------------------------------------
async function transactions() {
  const kafka = makeKafka(`${NAME}-client`, { retry: { retries: 5 } })
  const topic = `${NAME}-t`
  const admin = kafka.admin()
  await admin.connect()
  at('create topic')
  await createTopic(admin, topic, 1)
  const r = {}
  // kafkajs 2.2.4 gives up on any TxnOffsetCommit error, including the
  // COORDINATOR_LOAD_IN_PROGRESS a broker answers (Kafka as well) while the
  // group's __consumer_offsets partition loads: have it loaded first. Its
  // admin client does not retry that error either, so this does.
  at('group coordinator loaded')
  await waitFor(async () => {
    try {
      await admin.fetchOffsets({ groupId: `${NAME}-offsets`, topics: [topic] })
      return true
    } catch (e) {
      if (e.type === 'GROUP_LOAD_IN_PROGRESS' || e.type === 'COORDINATOR_LOAD_IN_PROGRESS') return false
      throw e
    }
  }, 20000, "the group's coordinator to load")

  at('transactional producer connect')
  const producer = kafka.producer({
    transactionalId: `${NAME}-txid`,
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  })
  await producer.connect()
  const sendTx = async (values, end, offsets) => {
    const tx = await producer.transaction()
    const res = await tx.send({ topic, acks: -1, messages: values.map(value => ({ key: 'k', value, partition: 0 })) })
    if (offsets) await tx.sendOffsets(offsets)
    await tx[end]()
    return Number(res[0].baseOffset)
  }
  at('transaction 1 (commit)')
  const base1 = await sendTx(['c0', 'c1', 'c2'], 'commit')
  at('transaction 2 (abort)')
  const base2 = await sendTx(['a0', 'a1'], 'abort')
  at('transaction 3 (commit, with offsets)')
  const base3 = await sendTx(['c3'], 'commit', {
    consumerGroupId: `${NAME}-offsets`,
    topics: [{ topic, partitions: [{ partition: 0, offset: '2' }] }],
  })
  r.baseOffsets = [base1, base2, base3]
  await producer.disconnect()

  at('read_committed')
  const readCommitted = kafka.consumer({ groupId: `${NAME}-rc`, readUncommitted: false, maxWaitTimeInMs: 250 })
  await readCommitted.connect()
  await readCommitted.subscribe({ topic, fromBeginning: true })
  const committed = collect(readCommitted)
  await waitFor(() => committed.some(m => m.value === 'c3'), 30000, 'c3 in read_committed')
  await readCommitted.disconnect()
  r.readCommitted = committed.map(m => ({ offset: m.offset, value: m.value, inTransaction: m.batch.inTransaction }))

  at('read_uncommitted')
  const readUncommitted = kafka.consumer({ groupId: `${NAME}-ru`, readUncommitted: true, maxWaitTimeInMs: 250 })
  await readUncommitted.connect()
  await readUncommitted.subscribe({ topic, fromBeginning: true })
  const uncommitted = collect(readUncommitted)
  await waitFor(() => uncommitted.some(m => m.value === 'c3'), 30000, 'c3 in read_uncommitted')
  await readUncommitted.disconnect()
  r.readUncommitted = uncommitted.map(m => ({ offset: m.offset, value: m.value }))

  r.watermarks = await highWatermarks(admin, topic)
  const offs = await admin.fetchOffsets({ groupId: `${NAME}-offsets`, topics: [topic] })
  r.txnCommittedOffset = Number(offs[0].partitions[0].offset)
  await admin.disconnect()
  return r
}

// --- scenario 6: a compacted topic --------------------------------------------------
// Run twice by the test. ARGS.phase 'produce': a compacted topic with small
// segments; keyed sends (k9 only in the first, k5 deleted by a tombstone after
// its last value), then sends of fillers (keys of their own) enough to roll the
// segment holding the last keyed send; reports every message with the offset
// it was acknowledged at. The test then waits for the broker to clean the log.
// ARGS.phase 'consume': a group consumer from the beginning, until it has been
// handed ARGS.lastOffset; reports what it was handed.
async function compaction() {
  const kafka = makeKafka(`${NAME}-client`)
  const topic = `${NAME}-t`
  const admin = kafka.admin()
  await admin.connect()
  const r = {}
  if (ARGS.phase === 'produce') {
    at('create topic')
    await createTopic(admin, topic, 1, [
      { name: 'cleanup.policy', value: 'compact' },
      { name: 'segment.bytes', value: String(ARGS.segmentBytes || 16384) },
      { name: 'min.cleanable.dirty.ratio', value: '0.01' },
      { name: 'delete.retention.ms', value: '3600000' },
    ])
    const producer = kafka.producer({ allowAutoTopicCreation: false })
    await producer.connect()
    const baseTs = Date.now() - 600 * 1000
    const pad = 'p'.repeat(100)
    const sent = []
    let seq = 0
    const send = async messages => {
      const res = await producer.send({ topic, acks: -1, messages })
      const base = Number(res[0].baseOffset)
      messages.forEach((m, i) => {
        sent.push({
          offset: base + i,
          key: norm(m.key),
          value: norm(m.value),
          headers: normHeaders(m.headers),
          timestamp: m.timestamp,
        })
      })
    }
    at('produce keyed')
    for (let b = 0; b < 20; b++) {
      const messages = []
      for (let i = 0; i < 20; i++, seq++) {
        // k9 only in the first send; k0..k8 throughout, in a shuffled order
        const k = b === 0 && i < 3 ? 9 : (seq * 7 + b) % 9
        const m = { key: `k${k}`, value: `k${k}:v-${seq}:${pad}`, timestamp: String(baseTs + seq * 10) }
        if (seq % 4 === 0) m.headers = { seq: String(seq), codec: 'none' }
        messages.push(m)
      }
      if (b === 19) messages.push({ key: 'k5', value: null, headers: { why: 'deleted' }, timestamp: String(baseTs + 99999) })
      await send(messages)
    }
    r.lastKeyedOffset = sent[sent.length - 1].offset
    at('produce fillers')
    for (let b = 0; b < 20; b++) {
      await send(
        Array.from({ length: 20 }, (_, i) => ({
          key: `filler-${b}-${i}`,
          value: `f:${pad}`,
          timestamp: String(baseTs + 200000 + b * 20 + i),
        }))
      )
    }
    await producer.disconnect()
    r.sent = sent
  } else {
    at('consume')
    const consumer = kafka.consumer({ groupId: `${NAME}-g`, maxWaitTimeInMs: 250 })
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    const received = collect(consumer)
    await waitFor(() => received.some(m => m.offset >= ARGS.lastOffset), 30000, `offset ${ARGS.lastOffset}`)
    await consumer.disconnect()
    r.received = received.map(m => ({
      offset: m.offset,
      key: m.key,
      value: m.value,
      headers: m.headers,
      timestamp: m.timestamp,
    }))
    r.watermarks = await highWatermarks(admin, topic)
  }
  await admin.disconnect()
  return r
}

// --- scenario 7: TLS ------------------------------------------------------------------
// BOOTSTRAP is the broker's SSL listener. ARGS.ca is the CA certificate kafkajs
// trusts (the `ssl` option of new Kafka(): tls.connect options); ARGS.cert and
// ARGS.key, when given, the client certificate it presents.
function tlsOptions() {
  const ssl = { ca: [fs.readFileSync(ARGS.ca)] }
  if (ARGS.cert) {
    ssl.cert = fs.readFileSync(ARGS.cert)
    ssl.key = fs.readFileSync(ARGS.key)
  }
  return ssl
}

// One handshake with Node's own TLS (the options kafkajs passes it): what the
// broker negotiated and presented.
function tlsPeer(ssl) {
  const tls = require('tls')
  const [host, port] = bootstrap.split(':')
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port: Number(port), ...ssl }, () => {
      const cert = socket.getPeerCertificate()
      const out = {
        authorized: socket.authorized,
        protocol: socket.getProtocol(),
        subject: cert.subject && cert.subject.CN,
        issuer: cert.issuer && cert.issuer.CN,
        subjectaltname: cert.subjectaltname,
      }
      socket.end()
      resolve(out)
    })
    socket.once('error', reject)
  })
}

// Produce (none and gzip, small and large values: a value spans many TLS
// records) and consume with a group over the SSL listener.
async function tlsScenario() {
  const ssl = tlsOptions()
  at('raw TLS handshake')
  const peer = await tlsPeer(ssl)
  const kafka = makeKafka(`${NAME}-client`, { ssl })
  const topic = `${NAME}-t`
  const admin = kafka.admin()
  at('admin connect')
  await admin.connect()
  at('describe cluster')
  const cluster = await admin.describeCluster()
  at('create topic')
  await createTopic(admin, topic, 2)

  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  // crypto-random, so gzip cannot shrink it below the TLS record size
  const big = crypto.randomBytes(600 * 1024)
  const mid = crypto.randomBytes(40 * 1024)
  const plan = [
    { partition: 0, compression: 'none', n: 50 },
    { partition: 1, compression: 'gzip', n: 20 },
    { partition: 0, compression: 'gzip', n: 3, large: true },
    { partition: 1, compression: 'none', n: 3, large: true },
  ]
  const expected = []
  const sends = []
  at('produce')
  for (const [b, { partition, compression, n, large }] of plan.entries()) {
    const messages = []
    for (let i = 0; i < n; i++) {
      let value = `tls-${b}-${i}`
      if (large) value = i === 1 ? big : mid
      messages.push({ key: `key-${b}-${i}`, value, headers: { batch: String(b) }, partition })
    }
    const res = await producer.send({
      topic,
      acks: -1,
      compression: compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None,
      messages,
    })
    sends.push(res.map(r => ({ partition: r.partition, errorCode: r.errorCode, baseOffset: Number(r.baseOffset) })))
    for (const m of messages) {
      expected.push({ partition, key: norm(m.key), value: norm(m.value), headers: normHeaders(m.headers) })
    }
  }
  await producer.disconnect()

  at('consume')
  const consumer = kafka.consumer({
    groupId: `${NAME}-g`,
    heartbeatInterval: 500,
    sessionTimeout: 10000,
    maxWaitTimeInMs: 250,
  })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const received = collect(consumer)
  await waitFor(() => received.length >= expected.length, 30000, `${expected.length} messages`)
  at('watermarks')
  const watermarks = await highWatermarks(admin, topic)
  await consumer.disconnect()
  await admin.disconnect()
  return {
    peer,
    brokers: cluster.brokers.map(x => ({ nodeId: x.nodeId, host: x.host, port: x.port })),
    sends,
    expected,
    received: received.map(m => ({
      partition: m.partition,
      offset: m.offset,
      key: m.key,
      value: m.value,
      headers: m.headers,
    })),
    watermarks,
  }
}

// A client the broker must refuse (no certificate, or one it does not trust, on
// a listener with ssl.client.auth=required): no retries and short timeouts, so
// the refusal comes fast. ok: true either way; `refused` says what happened.
async function tlsRefused() {
  const kafka = makeKafka(`${NAME}-client`, {
    ssl: tlsOptions(),
    connectionTimeout: 3000,
    requestTimeout: 5000,
    retry: { retries: 0, initialRetryTime: 100, maxRetryTime: 200 },
  })
  const admin = kafka.admin()
  const started = Date.now()
  try {
    at('admin connect (to be refused)')
    await admin.connect()
    at('list topics (to be refused)')
    const topics = await admin.listTopics()
    await admin.disconnect()
    return { refused: false, topics }
  } catch (e) {
    const causes = []
    for (let c = e; c && causes.length < 5; c = c.cause || c.originalError) causes.push(`${c.name}: ${c.message}`)
    return { refused: true, errorName: e.name, error: causes.join(' <- '), ms: Date.now() - started }
  }
}

// --- scenario 8: ACLs -------------------------------------------------------------------
// BOOTSTRAP is the SASL_PLAINTEXT listener of a broker with Kafka's
// StandardAuthorizer (tests/clients/acl_support.py): admin is a super user,
// alice may do only what an ACL allows her. CreateAcls and DeleteAcls go to
// the controller; the broker applies an ACL once its metadata image holds it,
// so every step that depends on a change polls until it shows (Kafka's
// AdminClient makes the same promise, and no more).

// An ACL binding as JSON, its enums by kafkajs' names for them.
function enumName(table, value) {
  const name = Object.keys(table).find(k => table[k] === value)
  return name === undefined ? value : name
}

function aclJson(resource, acl) {
  return {
    resourceType: enumName(AclResourceTypes, resource.resourceType),
    resourceName: resource.resourceName,
    patternType: enumName(ResourcePatternTypes, resource.resourcePatternType),
    principal: acl.principal,
    host: acl.host,
    operation: enumName(AclOperationTypes, acl.operation),
    permissionType: enumName(AclPermissionTypes, acl.permissionType),
  }
}

function sortedAcls(list) {
  return list.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
}

// What describeAcls answered, one entry per ACL, in a stable order.
function describedAcls({ resources }) {
  return sortedAcls(resources.flatMap(r => r.acls.map(a => aclJson(r, a))))
}

// An error and its causes, as JSON: kafkajs wraps a broker's error code (a
// KafkaJSProtocolError with its type) in its retrier's errors.
function errorInfo(e, depth = 0) {
  const out = { name: e.name, message: e.message }
  if (e.type !== undefined) out.type = e.type
  if (e.code !== undefined) out.code = e.code
  if (e.retriable !== undefined) out.retriable = e.retriable
  if (e.cause && e.cause !== e && depth < 4) out.cause = errorInfo(e.cause, depth + 1)
  return out
}

// The innermost protocol error type of e (TOPIC_AUTHORIZATION_FAILED, ...).
function errorType(e) {
  for (let c = e; c; c = c.cause === c ? null : c.cause) {
    if (c.type) return c.type
  }
  return undefined
}

const ANY_ACL = {
  resourceType: AclResourceTypes.ANY,
  resourcePatternType: ResourcePatternTypes.ANY,
  operation: AclOperationTypes.ANY,
  permissionType: AclPermissionTypes.ANY,
}

async function aclScenario() {
  const topic = `${NAME}-orders`
  const groupId = `${NAME}-g`
  const users = { admin: 'admin-secret', alice: 'alice-secret' }
  const asUser = user =>
    makeKafka(`${NAME}-${user}`, { sasl: { mechanism: 'plain', username: user, password: users[user] } })
  const adminKafka = asUser('admin')
  const alice = asUser('alice')
  const admin = adminKafka.admin()
  const r = {}
  at('admin connect')
  await admin.connect()
  at('create topic')
  await createTopic(admin, topic, 1)

  const acl = (principal, resourceType, resourceName, resourcePatternType, operation, permissionType) => ({
    principal,
    host: '*',
    resourceType: AclResourceTypes[resourceType],
    resourceName,
    resourcePatternType: ResourcePatternTypes[resourcePatternType],
    operation: AclOperationTypes[operation],
    permissionType: AclPermissionTypes[permissionType],
  })
  const readTopic = acl('User:alice', 'TOPIC', topic, 'LITERAL', 'READ', 'ALLOW')
  const describeGroups = acl('User:alice', 'GROUP', `${NAME}-`, 'PREFIXED', 'DESCRIBE', 'ALLOW')
  const denyCarol = acl('User:carol', 'TOPIC', `${NAME}-`, 'PREFIXED', 'ALL', 'DENY')
  const writePrefix = acl('User:alice', 'TOPIC', `${NAME}-ord`, 'PREFIXED', 'WRITE', 'ALLOW')
  const readGroup = acl('User:alice', 'GROUP', groupId, 'LITERAL', 'READ', 'ALLOW')

  // Describes with `filter` until `done(acls)` holds; returns what it saw last.
  const describeUntil = async (filter, done, what) => {
    let last
    await waitFor(
      async () => {
        last = describedAcls(await admin.describeAcls({ ...ANY_ACL, ...filter }))
        return done(last)
      },
      30000,
      what
    )
    return last
  }

  at('createAcls (admin)')
  r.createAcls = await admin.createAcls({ acl: [readTopic, describeGroups, denyCarol] })
  r.describeAll = await describeUntil({}, a => a.length >= 3, 'the three ACLs to be described')
  at('describeAcls (filters)')
  r.describeAlice = describedAcls(await admin.describeAcls({ ...ANY_ACL, principal: 'User:alice' }))
  r.describePrefixed = describedAcls(
    await admin.describeAcls({ ...ANY_ACL, resourcePatternType: ResourcePatternTypes.PREFIXED })
  )
  // MATCH: every pattern that applies to the topic's name (its literal and
  // the prefix it starts with).
  r.describeMatch = describedAcls(
    await admin.describeAcls({
      ...ANY_ACL,
      resourceType: AclResourceTypes.TOPIC,
      resourceName: topic,
      resourcePatternType: ResourcePatternTypes.MATCH,
    })
  )

  // --- alice: producing ---
  const messages = ['a0', 'a1', 'a2'].map(value => ({ key: 'k', value, partition: 0 }))
  const producer = alice.producer({ allowAutoTopicCreation: false })
  at('alice producer connect')
  await producer.connect()
  const produceOnce = async (p = producer) => {
    try {
      const res = await p.send({ topic, acks: -1, messages })
      return { ok: true, baseOffset: Number(res[0].baseOffset), errorCode: res[0].errorCode }
    } catch (e) {
      return { ok: false, error: e }
    }
  }
  at('alice produce (no WRITE)')
  const refused = await produceOnce()
  if (refused.ok) throw new Error(`alice produced without WRITE: ${JSON.stringify(refused)}`)
  r.produceRefused = errorInfo(refused.error)

  at('createAcls WRITE (prefixed)')
  await admin.createAcls({ acl: [writePrefix] })
  await describeUntil({}, a => a.length >= 4, 'the WRITE ACL to be described')
  at('alice produce (WRITE)')
  const allowed = await produceOnce()
  if (!allowed.ok) throw allowed.error
  r.produced = allowed
  await producer.disconnect()

  // --- alice: consuming in a group ---
  // A new consumer: the error it crashed with (kafkajs gives up at once on a
  // non-retriable one; restartOnFailure stops it restarting after the
  // others), or the records it was handed.
  const consumeOnce = async want => {
    const consumer = alice.consumer({
      groupId,
      heartbeatInterval: 500,
      sessionTimeout: 10000,
      maxWaitTimeInMs: 250,
      retry: { restartOnFailure: async () => false },
    })
    let crash = null
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      crash = payload.error
    })
    const received = []
    try {
      await consumer.connect()
      await consumer.subscribe({ topic, fromBeginning: true })
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          received.push({ partition, offset: Number(message.offset), value: norm(message.value) })
        },
      })
      await waitFor(() => crash || received.length >= want, 30000, `${want} records or a crash`)
    } catch (e) {
      crash = crash || e
    } finally {
      await consumer.disconnect()
    }
    return crash ? { ok: false, error: crash } : { ok: true, received }
  }
  at('alice consume (no READ on the group)')
  const groupRefused = await consumeOnce(3)
  if (groupRefused.ok) throw new Error(`alice consumed without READ on the group: ${JSON.stringify(groupRefused)}`)
  r.consumeRefused = errorInfo(groupRefused.error)

  at('createAcls READ group')
  await admin.createAcls({ acl: [readGroup] })
  await describeUntil({}, a => a.length >= 5, 'the READ group ACL to be described')
  // An operation filter matches that operation only (not the DESCRIBE ACL).
  r.describeGroupRead = describedAcls(
    await admin.describeAcls({
      ...ANY_ACL,
      resourceType: AclResourceTypes.GROUP,
      operation: AclOperationTypes.READ,
    })
  )
  at('alice consume (READ on the group)')
  const consumed = await consumeOnce(3)
  if (!consumed.ok) throw consumed.error
  r.consumed = consumed.received
  at('committed offsets')
  r.committed = (await admin.fetchOffsets({ groupId, topics: [topic] }))[0].partitions.map(p => ({
    partition: p.partition,
    offset: Number(p.offset),
  }))

  // --- alice: managing ACLs ---
  const aliceAdmin = alice.admin()
  at('alice admin connect')
  await aliceAdmin.connect()
  const refusal = async fn => {
    try {
      return { ok: true, result: await fn() }
    } catch (e) {
      return errorInfo(e)
    }
  }
  at('alice createAcls')
  r.aliceCreateAcls = await refusal(() =>
    aliceAdmin.createAcls({ acl: [acl('User:alice', 'CLUSTER', 'kafka-cluster', 'LITERAL', 'ALTER', 'ALLOW')] })
  )
  at('alice describeAcls')
  r.aliceDescribeAcls = await refusal(() => aliceAdmin.describeAcls(ANY_ACL))
  at('alice deleteAcls')
  r.aliceDeleteAcls = await refusal(() => aliceAdmin.deleteAcls({ filters: [ANY_ACL] }))
  await aliceAdmin.disconnect()
  at('describeAcls after alice')
  r.describeAfterAlice = describedAcls(await admin.describeAcls(ANY_ACL))

  // --- admin deletes alice's ACLs ---
  at('deleteAcls (admin)')
  const deleted = await admin.deleteAcls({ filters: [{ ...ANY_ACL, principal: 'User:alice' }] })
  r.deleteAcls = deleted.filterResponses.map(f => ({
    errorCode: f.errorCode,
    errorMessage: f.errorMessage,
    matching: sortedAcls(
      f.matchingAcls.map(m => ({ errorCode: m.errorCode, ...aclJson(m, m) }))
    ),
  }))
  r.describeAfterDelete = await describeUntil({}, a => a.length <= 1, "alice's ACLs to be gone")

  at('alice produce (ACLs deleted)')
  const producer2 = alice.producer({ allowAutoTopicCreation: false })
  await producer2.connect()
  const refusedAgain = await produceOnce(producer2)
  r.produceAfterDelete = refusedAgain.ok ? refusedAgain : errorInfo(refusedAgain.error)
  await producer2.disconnect()
  at('alice consume (ACLs deleted)')
  const groupRefusedAgain = await consumeOnce(1)
  r.consumeAfterDelete = groupRefusedAgain.ok ? groupRefusedAgain : errorInfo(groupRefusedAgain.error)
  // The group, without a topic in the way: OffsetFetch, after FindCoordinator.
  at('alice fetchOffsets (ACLs deleted)')
  const aliceAdmin2 = alice.admin()
  await aliceAdmin2.connect()
  r.fetchOffsetsAfterDelete = await refusal(() => aliceAdmin2.fetchOffsets({ groupId, topics: [topic] }))
  await aliceAdmin2.disconnect()

  at('watermarks')
  r.watermarks = await highWatermarks(admin, topic)
  await admin.disconnect()
  return r
}

// --- scenario 9: SASL/SCRAM and re-authentication (KIP-368) -----------------------------
// BOOTSTRAP is the SASL_PLAINTEXT listener of a broker with SCRAM-SHA-256 and
// SCRAM-SHA-512 (test_kafkajs.py made the users with `samsa configs`,
// ARGS.users): alice signs in with SCRAM-SHA-512, whose sessions the listener
// ends after connections.max.reauth.ms (ARGS.lifetimeMs); bob with
// SCRAM-SHA-256, whose sessions never end. The broker gives a session's
// lifetime in its last SaslAuthenticate v1 answer; kafkajs then re-authenticates
// the connection on its own, before a request, once the session is within
// reauthenticationThreshold of its end (ARGS.reauthThresholdMs; kafkajs'
// default, 10 s, is longer than the whole session: it would re-authenticate
// before every request).
//
// Every socket the clients open is watched (a socketFactory that splits both
// directions into frames): the requests it sent, the sessions its SCRAM
// exchanges opened (the lifetime the broker gave each, how many requests went
// out in it and how old it was at the latest), the SaslAuthenticate errors it
// was answered, and whether the broker closed it first.

const API = require('kafkajs/src/protocol/requests/apiKeys')
const API_NAMES = Object.fromEntries(Object.entries(API).map(([name, key]) => [key, name]))

// One direction of a Kafka connection as frames (a 4-byte size, then the
// frame): onFrame(head, frame) is handed the first bytes of each frame, and
// the whole of it if wantAll(head); the others (Produce, Fetch) are skipped,
// not copied.
class FrameSplitter {
  constructor(onFrame, wantAll = () => false) {
    this.onFrame = onFrame
    this.wantAll = wantAll
    this.buf = Buffer.alloc(0)
    this.skip = 0
  }

  feed(chunk) {
    if (this.skip > 0) {
      const n = Math.min(this.skip, chunk.length)
      this.skip -= n
      chunk = chunk.subarray(n)
    }
    if (chunk.length === 0) return
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : Buffer.from(chunk)
    while (this.buf.length >= 4) {
      const size = this.buf.readInt32BE(0)
      const head = this.buf.subarray(4, 4 + Math.min(size, 64))
      if (head.length < Math.min(size, 64)) return
      const all = this.wantAll(head)
      if (all && this.buf.length < 4 + size) return
      this.onFrame(head, all ? this.buf.subarray(4, 4 + size) : null)
      if (this.buf.length >= 4 + size) {
        this.buf = this.buf.subarray(4 + size)
      } else {
        this.skip = 4 + size - this.buf.length
        this.buf = Buffer.alloc(0)
      }
    }
  }
}

// A SaslAuthenticate v0/v1 response frame (not flexible): correlation id,
// error_code, error_message, auth_bytes, and (v1) session_lifetime_ms.
function saslAuthenticateResponse(frame, version) {
  let o = 4
  const errorCode = frame.readInt16BE(o)
  o += 2
  const messageLength = frame.readInt16BE(o)
  o += 2
  const errorMessage = messageLength < 0 ? null : frame.toString('utf8', o, o + messageLength)
  o += Math.max(messageLength, 0)
  const authLength = frame.readInt32BE(o)
  o += 4
  const authBytes = frame.subarray(o, o + Math.max(authLength, 0))
  o += Math.max(authLength, 0)
  const sessionLifetimeMs = version >= 1 ? Number(frame.readBigInt64BE(o)) : null
  return { errorCode, errorMessage, authBytes, sessionLifetimeMs }
}

function socketWatcher() {
  const sockets = []
  const factoryFor = label => ({ host, port, onConnect }) => {
    const socket = net.connect({ host, port }, onConnect)
    socket.setKeepAlive(true, 60000) // as kafkajs' own socket factory
    const s = {
      label,
      apis: {}, // "ApiName vN" -> requests sent
      sessions: [], // one per SCRAM exchange that succeeded
      saslErrors: [], // SaslAuthenticate answers with an error
      parseErrors: [],
      endedByClient: false,
      closedByBroker: false,
    }
    sockets.push(s)
    const pending = new Map() // correlation id -> the request's api key and version
    const sasl = [API.ApiVersions, API.SaslHandshake, API.SaslAuthenticate]
    const outbound = new FrameSplitter(head => {
      if (head.length < 8) return
      const apiKey = head.readInt16BE(0)
      const apiVersion = head.readInt16BE(2)
      const name = `${API_NAMES[apiKey] || apiKey} v${apiVersion}`
      s.apis[name] = (s.apis[name] || 0) + 1
      pending.set(head.readInt32BE(4), { apiKey, apiVersion })
      const session = s.sessions[s.sessions.length - 1]
      if (session && !sasl.includes(apiKey)) {
        session.requests++
        session.maxAgeMs = Math.max(session.maxAgeMs, Date.now() - session.at)
      }
    })
    const answersSaslAuthenticate = head =>
      head.length >= 4 && (pending.get(head.readInt32BE(0)) || {}).apiKey === API.SaslAuthenticate
    const inbound = new FrameSplitter((head, frame) => {
      const correlationId = head.readInt32BE(0)
      const request = pending.get(correlationId)
      pending.delete(correlationId)
      if (!frame) return
      const a = saslAuthenticateResponse(frame, request.apiVersion)
      if (a.errorCode !== 0) {
        s.saslErrors.push({ errorCode: a.errorCode, errorMessage: a.errorMessage })
      } else if (a.authBytes.toString().startsWith('v=')) {
        // SCRAM's server-final message: the exchange is over, a session begins
        s.sessions.push({ at: Date.now(), lifetimeMs: a.sessionLifetimeMs, requests: 0, maxAgeMs: 0 })
      }
    }, answersSaslAuthenticate)
    const guarded = splitter => chunk => {
      try {
        if (Buffer.isBuffer(chunk)) splitter.feed(chunk)
      } catch (e) {
        s.parseErrors.push(String(e))
      }
    }
    const watchOut = guarded(outbound)
    const write = socket.write.bind(socket)
    socket.write = (data, ...rest) => {
      watchOut(data)
      return write(data, ...rest)
    }
    const end = socket.end.bind(socket)
    socket.end = (...a) => {
      s.endedByClient = true
      return end(...a)
    }
    socket.on('data', guarded(inbound))
    socket.on('end', () => {
      if (!s.endedByClient) s.closedByBroker = true
    })
    return socket
  }
  return { sockets, factoryFor }
}

// The names of e and of its causes, outermost first.
function errorNames(e) {
  const names = []
  for (let c = e; c && names.length < 5; c = c.cause === c ? null : c.cause || c.originalError) {
    names.push(c.name)
  }
  return names
}

async function scramScenario() {
  const { users, lifetimeMs, reauthThresholdMs, produceMs, pauseMs } = ARGS
  const watcher = socketWatcher()
  const sasl = (user, overrides = {}) => ({
    mechanism: users[user].mechanism,
    username: user,
    password: users[user].password,
    ...overrides,
  })
  const asUser = (user, label, opts = {}) =>
    makeKafka(`${NAME}-${label}`, {
      sasl: sasl(user),
      socketFactory: watcher.factoryFor(label),
      reauthenticationThreshold: reauthThresholdMs,
      ...opts,
    })
  // A sign-in (an admin client's connect: ApiVersions, SaslHandshake,
  // SaslAuthenticate) with no retries: {refused: false}, or kafkajs' error.
  const signIn = async (label, saslOptions) => {
    const admin = makeKafka(`${NAME}-${label}`, {
      sasl: saslOptions,
      socketFactory: watcher.factoryFor(label),
      retry: { retries: 0 },
    }).admin()
    const started = Date.now()
    try {
      await admin.connect()
      await admin.disconnect()
      return { refused: false }
    } catch (e) {
      return { refused: true, ms: Date.now() - started, names: errorNames(e), ...errorInfo(e) }
    }
  }
  const r = { lifetimeMs, reauthThresholdMs }

  // `samsa configs` returned once the controller took the credentials; the
  // listener knows them once its metadata image holds them.
  at('wait until alice and bob can sign in')
  r.signInAttempts = {}
  for (const user of Object.keys(users)) {
    let attempts = 0
    await waitFor(
      async () => {
        attempts++
        const s = await signIn(`signin-${user}`, sasl(user))
        if (s.refused && !s.names.includes('KafkaJSSASLAuthenticationError')) {
          throw new Error(`${user}'s sign-in failed otherwise: ${JSON.stringify(s)}`)
        }
        return !s.refused
      },
      30000,
      `${user} to sign in with ${users[user].mechanism}`
    )
    r.signInAttempts[user] = attempts
  }

  // --- alice: a group consumer reads while a producer writes for produceMs ---
  const topic = `${NAME}-alice`
  const admin = asUser('alice', 'alice-admin').admin()
  at('alice: create topic')
  await admin.connect()
  await createTopic(admin, topic, 1)

  const consumer = asUser('alice', 'alice-consumer').consumer({
    groupId: `${NAME}-alice-g`,
    heartbeatInterval: 500,
    sessionTimeout: 10000,
    maxWaitTimeInMs: 250,
  })
  let joins = 0
  consumer.on(consumer.events.GROUP_JOIN, () => joins++)
  let consumerCrash = null
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    consumerCrash = consumerCrash || errorInfo(payload.error)
  })
  at('alice: consumer joins')
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const received = []
  consumer
    .run({
      eachMessage: async ({ partition, message }) => {
        received.push([partition, Number(message.offset), norm(message.value)])
      },
    })
    .catch(e => fail(e))
  await waitFor(() => joins > 0, 30000, "alice's consumer to join its group")

  const producer = asUser('alice', 'alice-producer').producer({ allowAutoTopicCreation: false })
  at('alice: producer connect')
  await producer.connect()
  at('alice: produce')
  const started = Date.now()
  const sendErrors = []
  const baseOffsets = []
  let produced = 0
  while (Date.now() - started < produceMs) {
    const messages = []
    for (let i = 0; i < 5; i++) messages.push({ key: 'k', value: `alice-${produced + i}` })
    produced += messages.length
    try {
      const res = await producer.send({ topic, acks: -1, messages })
      baseOffsets.push(Number(res[0].baseOffset))
    } catch (e) {
      sendErrors.push(errorInfo(e))
    }
    // pacing (a send every few ms), not a wait for anything
    await new Promise(resolve => setTimeout(resolve, pauseMs))
  }
  const producedMs = Date.now() - started
  at('alice: consume')
  await waitFor(() => received.length >= produced || consumerCrash, 60000, `alice's ${produced} records`)
  at('alice: watermarks')
  const watermarks = await highWatermarks(admin, topic)
  await producer.disconnect()
  await consumer.disconnect()
  await admin.disconnect()
  const misplaced = []
  received.forEach((m, j) => {
    if (misplaced.length < 10 && (m[0] !== 0 || m[1] !== j || m[2] !== `alice-${j}`)) {
      misplaced.push([j, ...m])
    }
  })
  r.alice = {
    producedMs,
    produced,
    sends: baseOffsets.length,
    sendErrors,
    // each send of five was acknowledged at the offset after the previous one's
    baseOffsetsInOrder: baseOffsets.every((b, i) => b === 5 * i),
    received: received.length,
    misplaced, // [index, partition, offset, value] of records not where they belong
    joins,
    consumerCrash,
    watermarks,
  }

  // --- bob: a round trip with sessions that never end ---
  const bob = asUser('bob', 'bob')
  const bobTopic = `${NAME}-bob`
  const bobAdmin = bob.admin()
  at('bob: create topic')
  await bobAdmin.connect()
  await createTopic(bobAdmin, bobTopic, 1)
  const bobProducer = bob.producer({ allowAutoTopicCreation: false })
  at('bob: produce')
  await bobProducer.connect()
  const bobSent = Array.from({ length: 10 }, (_, i) => `bob-${i}`)
  const bobRes = await bobProducer.send({
    topic: bobTopic,
    acks: -1,
    messages: bobSent.map(value => ({ value })),
  })
  await bobProducer.disconnect()
  const bobConsumer = bob.consumer({
    groupId: `${NAME}-bob-g`,
    heartbeatInterval: 500,
    sessionTimeout: 10000,
    maxWaitTimeInMs: 250,
  })
  at('bob: consume')
  await bobConsumer.connect()
  await bobConsumer.subscribe({ topic: bobTopic, fromBeginning: true })
  const bobReceived = []
  bobConsumer
    .run({
      eachMessage: async ({ partition, message }) => {
        bobReceived.push([partition, Number(message.offset), norm(message.value)])
      },
    })
    .catch(e => fail(e))
  await waitFor(() => bobReceived.length >= bobSent.length, 30000, `bob's ${bobSent.length} records`)
  await bobConsumer.disconnect()
  await bobAdmin.disconnect()
  r.bob = { baseOffset: Number(bobRes[0].baseOffset), received: bobReceived }

  // --- sign-ins the broker refuses ---
  at('refused sign-ins')
  r.wrongPassword = await signIn('wrong-password', sasl('alice', { password: 'not-alice-secret' }))
  r.unknownUser = await signIn('unknown-user', {
    mechanism: 'scram-sha-512',
    username: 'mallory',
    password: 'mallory-secret',
  })
  // bob has a SCRAM-SHA-256 credential only
  r.wrongMechanism = await signIn('wrong-mechanism', sasl('bob', { mechanism: 'scram-sha-512' }))

  r.sockets = watcher.sockets
  return r
}

// The same listener, and a kafkajs that never re-authenticates (a
// reauthenticationThreshold of minus an hour): once alice's session is older
// than its lifetime, the broker closes the connection on her next request,
// and kafkajs' retry sends it again on a new connection, in a new session.
async function scramExpiry() {
  const { users, lifetimeMs } = ARGS
  const watcher = socketWatcher()
  const kafka = makeKafka(`${NAME}-alice`, {
    sasl: { mechanism: users.alice.mechanism, username: 'alice', password: users.alice.password },
    socketFactory: watcher.factoryFor('alice'),
    reauthenticationThreshold: -3600 * 1000,
  })
  const topic = `${NAME}-t`
  const admin = kafka.admin()
  at('create topic')
  await admin.connect()
  await createTopic(admin, topic, 1)
  await admin.disconnect()
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  at('producer connect')
  await producer.connect()
  const send = async value => {
    const res = await producer.send({ topic, acks: -1, messages: [{ value }] })
    return Number(res[0].baseOffset)
  }
  at('send in a fresh session')
  const first = await send('fresh')
  const produceSocket = watcher.sockets.find(s => Object.keys(s.apis).some(k => k.startsWith('Produce ')))
  const session = produceSocket.sessions[produceSocket.sessions.length - 1]
  // the session's end, not a synchronisation: nothing else happens meanwhile
  at('session ends')
  await waitFor(() => Date.now() - session.at > lifetimeMs + 250, lifetimeMs + 5000, 'the session to end')
  at('send in an expired session')
  const second = await send('expired')
  await producer.disconnect()
  return { first, second, sockets: watcher.sockets }
}

// --- client quotas (docs/client-quotas.md) ------------------------------------------
// How kafkajs 2.2.4 takes a throttle (KIP-219): every response decoder hands
// throttle_time_ms on as clientSideThrottleTime (Produce v6+, Fetch v8+; kafkajs
// sends Produce v7 and Fetch v11), and Connection.send passes it to its
// RequestQueue.maybeThrottle, which holds every later request of that
// connection in its pending queue until the time has passed. There is no
// instrumentation event for it: REQUEST events carry no throttle time (only
// pendingDuration, the time a request waited in that queue), and
// REQUEST_QUEUE_SIZE only the queue's length. What does name the time is
// the DEBUG log line "Client side throttling in effect for Nms": each client
// here has its own Kafka instance logging at DEBUG to a logCreator that
// counts those lines (and passes ERROR lines on to stderr as usual).
const THROTTLE_LOG = /^Client side throttling in effect for (\d+)ms$/

function quotaClient(clientId) {
  const seen = { throttleMs: [], maxPendingMs: 0, requests: 0 }
  const kafka = makeKafka(clientId, {
    logLevel: logLevel.DEBUG,
    logCreator: level => {
      const toStderr = logCreator(level)
      return entry => {
        const m = THROTTLE_LOG.exec(entry.log.message)
        if (m) seen.throttleMs.push(Number(m[1]))
        else if (entry.level <= logLevel.ERROR) toStderr(entry)
      }
    },
  })
  const watch = (client, api) => {
    client.on(client.events.REQUEST, ({ payload }) => {
      if (payload.apiName !== api) return
      seen.requests++
      seen.maxPendingMs = Math.max(seen.maxPendingMs, payload.pendingDuration)
    })
    return client
  }
  return { kafka, seen, watch }
}

function quotaReport({ seen }, events) {
  return {
    events, // [ms since the start, value bytes] per acknowledged / received record(s)
    throttles: seen.throttleMs.length,
    maxThrottleMs: seen.throttleMs.length ? Math.max(...seen.throttleMs) : 0,
    sumThrottleMs: seen.throttleMs.reduce((a, b) => a + b, 0),
    maxPendingMs: seen.maxPendingMs,
    requests: seen.requests,
  }
}

// Two producers, ARGS.clients (the throttled one first), each with
// ARGS.concurrency sends of ARGS.batch records of ARGS.recordBytes in flight at
// once for ARGS.seconds: kafkajs has no accumulator, a send is one Produce
// request, so only sends in parallel go faster than one round trip allows.
async function quotaProduce() {
  const { clients, seconds, concurrency, batch, recordBytes } = ARGS
  const topic = `${NAME}-t`
  const admin = makeKafka(`${NAME}-admin`).admin()
  at('create topic')
  await admin.connect()
  await createTopic(admin, topic, 1)
  await admin.disconnect()

  const value = Buffer.alloc(recordBytes, 'x')
  const messages = Array.from({ length: batch }, () => ({ value }))
  const producers = clients.map(clientId => {
    const c = quotaClient(clientId)
    return { clientId, c, producer: c.watch(c.kafka.producer({ allowAutoTopicCreation: false }), 'Produce'), events: [] }
  })
  at('producers connect')
  await Promise.all(producers.map(p => p.producer.connect()))
  at('produce')
  const start = Date.now()
  const worker = async p => {
    while (Date.now() - start < seconds * 1000) {
      await p.producer.send({ topic, acks: -1, messages })
      p.events.push([Date.now() - start, batch * recordBytes])
    }
  }
  await Promise.all(producers.flatMap(p => Array.from({ length: concurrency }, () => worker(p))))
  at('disconnect')
  await Promise.all(producers.map(p => p.producer.disconnect()))
  const r = {}
  for (const p of producers) r[p.clientId] = quotaReport(p.c, p.events)
  return r
}

// ARGS.records records of ARGS.recordBytes written first (by another client
// id), then two group consumers (ARGS.clients, the throttled one first) read
// the topic from the beginning: the first for ARGS.seconds, the other until it
// has every record.
async function quotaFetch() {
  const { clients, seconds, records, recordBytes } = ARGS
  const topic = `${NAME}-t`
  const filler = makeKafka(`${NAME}-filler`)
  const admin = filler.admin()
  at('create topic')
  await admin.connect()
  await createTopic(admin, topic, 1)
  at('fill the topic')
  const producer = filler.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  const value = Buffer.alloc(recordBytes, 'y')
  const perSend = 50
  let queued = 0
  const fill = async () => {
    while (queued < records) {
      const n = Math.min(perSend, records - queued)
      queued += n
      await producer.send({ topic, acks: -1, messages: Array.from({ length: n }, () => ({ value })) })
    }
  }
  await Promise.all([fill(), fill(), fill(), fill()])
  await producer.disconnect()
  const filled = await highWatermarks(admin, topic)
  await admin.disconnect()
  if (filled[0].high !== records) throw new Error(`filled ${JSON.stringify(filled)}, not ${records}`)

  const consumers = clients.map(clientId => {
    const c = quotaClient(clientId)
    const consumer = c.watch(
      c.kafka.consumer({ groupId: `${NAME}-${clientId}-g`, maxWaitTimeInMs: 500, maxBytesPerPartition: 262144, maxBytes: 262144 }),
      'Fetch'
    )
    return { clientId, c, consumer, events: [], bytes: 0, count: 0 }
  })
  at('consume')
  const start = Date.now()
  await Promise.all(
    consumers.map(async k => {
      await k.consumer.connect()
      await k.consumer.subscribe({ topic, fromBeginning: true })
      k.consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ message }) => {
            k.count++
            k.bytes += message.value.length
            k.events.push([Date.now() - start, message.value.length])
          },
        })
        .catch(e => fail(e))
    })
  )
  const [slow, fast] = consumers
  // The throttled consumer reads for `seconds`, the other one until it has
  // every record; both end, whichever comes later.
  await waitFor(() => fast.count >= records, 60000, `${fast.clientId} to read ${records} records`)
  await waitFor(() => Date.now() - start >= seconds * 1000, seconds * 1000 + 5000, `${seconds} s of consuming`)
  at('disconnect')
  await Promise.all(consumers.map(k => k.consumer.disconnect()))
  const r = {}
  for (const k of consumers) r[k.clientId] = { ...quotaReport(k.c, k.events), count: k.count, bytes: k.bytes }
  r[slow.clientId].events = r[slow.clientId].events.filter(([t]) => t < seconds * 1000)
  return r
}

// --- main ---------------------------------------------------------------------------
// A broker's loggers through DescribeConfigs on its BROKER_LOGGER resource
// (KIP-412): the name and level of each, and the error for another broker id.
async function brokerLoggers() {
  const admin = makeKafka(`${NAME}-admin`).admin()
  at('connect')
  await admin.connect()
  at('describe loggers')
  const res = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.BROKER_LOGGER, name: String(ARGS.brokerId) }],
  })
  const r = { errorCode: res.resources[0].errorCode, loggers: {}, sources: [] }
  for (const c of res.resources[0].configEntries) {
    r.loggers[c.configName] = c.configValue
    r.sources.push(c.configSource)
  }
  at('describe another broker')
  try {
    const other = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.BROKER_LOGGER, name: String(ARGS.brokerId + 1) }],
    })
    r.otherError = other.resources[0].errorCode
    r.otherMessage = other.resources[0].errorMessage
  } catch (e) {
    r.otherError = e.type || `${e.name}: ${e.message}`
  }
  await admin.disconnect()
  return r
}

// --- partition reassignment (KIP-455) on one broker ---------------------------------------
// One broker has nowhere to move a partition to: this checks the two APIs'
// encodings and answers as kafkajs reads them (the moves themselves are the
// cluster tests', tests/cluster/test_reassignment.py).
async function reassignments() {
  const admin = makeKafka(`${NAME}-admin`).admin()
  const topic = `${NAME}-moves`
  at('connect')
  await admin.connect()
  await createTopic(admin, topic, 2)
  const r = {}
  at('list before')
  r.listedBefore = (await admin.listPartitionReassignments({})).topics
  at('reassign to the current replicas')
  await admin.alterPartitionReassignments({
    topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [ARGS.brokerId] }] }],
  })
  r.sameReplicas = 'ok'
  at('reassign to an unknown broker')
  try {
    await admin.alterPartitionReassignments({
      topics: [{ topic, partitionAssignment: [{ partition: 1, replicas: [ARGS.brokerId, 42] }] }],
    })
    r.unknownBroker = 'accepted'
  } catch (e) {
    // A KafkaJSAggregateError: one error per partition.
    r.unknownBroker = (e.errors || [e]).map((x) => x.type || `${x.name}: ${x.message}`)
  }
  at('list after')
  r.listedAfter = (await admin.listPartitionReassignments({
    topics: [{ topic, partitions: [0, 1] }],
  })).topics
  await admin.disconnect()
  return r
}

const scenarios = {
  'produce-consume': produceConsume,
  'broker-loggers': brokerLoggers,
  idempotent,
  admin: adminScenario,
  group: groupScenario,
  transactions,
  compaction,
  tls: tlsScenario,
  'tls-refused': tlsRefused,
  acls: aclScenario,
  scram: scramScenario,
  'scram-expiry': scramExpiry,
  'quota-produce': quotaProduce,
  'quota-fetch': quotaFetch,
  reassignments,
}

async function main() {
  const fn = scenarios[scenarioName]
  if (!fn || !bootstrap || !NAME) {
    throw new Error(`usage: scenarios.js {${Object.keys(scenarios).join('|')}} BOOTSTRAP NAME [ARGS_JSON]`)
  }
  const result = await fn()
  finish(0, { ok: true, scenario: scenarioName, ...result })
}

function fail(e) {
  finish(1, {
    ok: false,
    scenario: scenarioName,
    step,
    error: `${e.name}: ${e.message}`,
    type: e.type,
    cause: e.cause ? String(e.cause) : undefined,
    stack: e.stack,
  })
}

main().catch(fail)

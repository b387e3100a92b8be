import ContentfulMirror
import Foundation
import MirrorTestSupport

// contentful-mirror-bench: the project's benchmark. Run it in a release build:
//   swift run -c release contentful-mirror-bench [--entries 20000] [--assets N] [--locales 4]
//     [--runs 3] [--seed 1] [--delta 100] [--delta-repeats 5] [--work DIR] [--skip-export] [--skip-json] [--keep]
//     [--record DIR] [--serve] [--writers 1,2,4]
// It measures the real executable as a child process against a loopback CDA stand-in.

var options: [String: String] = [:]
var flags: Set<String> = []
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
  if ["--skip-export", "--keep", "--skip-json", "--serve"].contains(argument) {
    flags.insert(argument)
  } else if argument.hasPrefix("--"), let value = arguments.next() {
    options[argument] = value
  } else {
    print(
      "usage: contentful-mirror-bench [--entries N] [--assets N] [--locales N] [--runs N] [--seed N] [--delta N] [--delta-repeats N] [--work DIR] [--skip-export] [--skip-json] [--keep] [--record DIR] [--serve] [--writers 1,2,4]"
    )
    exit(64)
  }
}
let entries = Int(options["--entries"] ?? "") ?? 20_000
let assets = Int(options["--assets"] ?? "") ?? entries / 5
let locales = Int(options["--locales"] ?? "") ?? 4
let runs = max(1, Int(options["--runs"] ?? "") ?? 3)
let seed = UInt64(options["--seed"] ?? "") ?? 1
let deltaChanges = Int(options["--delta"] ?? "") ?? 100
// Each mirror's delta is applied this many times (see `timeDeltas`).
let deltaRepeats = max(1, Int(options["--delta-repeats"] ?? "") ?? 5)
// --writers 1,2,4: also time initial syncs with each of these writer-thread counts, turn about.
let writerCounts = (options["--writers"] ?? "").split(separator: ",").compactMap { Int($0) }
let work = options["--work"] ?? NSTemporaryDirectory() + "contentful-mirror-bench-\(getpid())"
let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  .appendingPathComponent("contentful-mirror").path
guard FileManager.default.isExecutableFile(atPath: executable) else {
  print("build the tool first: swift build -c release (looked for \(executable))")
  exit(1)
}
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
let token = ["CONTENTFUL_ACCESS_TOKEN": "bench-token"]
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
func medianMeasurement(_ all: [Measurement]) -> Measurement {
  Measurement(
    wall: median(all.map(\.wall)), user: median(all.map(\.user)), system: median(all.map(\.system)),
    maxRSSKilobytes: all.map(\.maxRSSKilobytes).max() ?? 0, status: all.map(\.status).max() ?? 0,
    machineCPU: median(all.map(\.machineCPU)))
}
func check(_ measurement: Measurement, _ what: String) {
  if measurement.status != 0 {
    print("FAILED: \(what) exited \(measurement.status)")
    exit(1)
  }
}
var directoryCounter = 0
/// A directory name never used before in this run: ext4 creates files in recently emptied
/// inode groups much more slowly, so nothing measured reuses deleted space.
@MainActor func freshDirectory(_ label: String) -> String {
  directoryCounter += 1
  return "\(work)/\(label)-\(directoryCounter)"
}

print(
  "contentful-mirror-bench: \(entries) entries, \(assets) assets, \(locales) locales, seed \(seed), \(runs) runs, median reported"
)
var generationStart = ChildProcess.monotonicSeconds()
var fullSpace = SyntheticSpace(entries: entries, assets: assets, locales: locales, seed: seed)
let fullServer = try SpaceServer(space: &fullSpace, deltaChanges: deltaChanges)
print(
  String(
    format: "space: %d pages, %.0f MB of JSON (served gzipped), generated in %.1f s",
    fullServer.pageCount, Double(fullServer.payloadBytes) / 1e6,
    ChildProcess.monotonicSeconds() - generationStart))

// --record DIR: write the space's initial sync and its delta as a recorded space and stop, for
// profiling (`perf record contentful-mirror sync /tmp/m --source DIR`; a second sync of /tmp/m
// applies the delta).
if let directory = options["--record"] {
  try FileManager.default.createDirectory(
    atPath: directory + "/sync", withIntermediateDirectories: true)
  func save(_ name: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name))
  }
  try save(
    "space.json", Array(#"{"sys": {"type": "Space", "id": "\#(SyntheticSpace.spaceID)"}}"#.utf8))
  try save("locales.json", fullSpace.localesJSON)
  try save("content_types.json", fullSpace.contentTypesJSON)
  for (index, page) in fullServer.uncompressedPages.enumerated() {
    try save(index == 0 ? "sync/initial.json" : "sync/p\(index).json", page)
  }
  for (token, page) in fullServer.uncompressedDeltaPages { try save("sync/\(token).json", page) }
  print("recorded the initial sync and a delta of \(deltaChanges) in \(directory)")
  exit(0)
}

// --serve: serve the space (and its delta) until killed, for profiling a sync over HTTP:
// `CONTENTFUL_ACCESS_TOKEN=bench-token contentful-mirror sync /tmp/m --space <id> --host <url>`.
if flags.contains("--serve") {
  FileHandle.standardError.write(
    Data(
      "serving space \(SyntheticSpace.spaceID) at \(fullServer.baseURL) (token bench-token)\n".utf8)
  )
  while true { sleep(3600) }
}

// 0. The JSON layer against Foundation on the same bytes: every sync page, parsed, then
// written back sorted and indented.
if !flags.contains("--skip-json") {
  let pages = fullServer.uncompressedPages
  let bytes = pages.reduce(0) { $0 + $1.count }
  // What the sync does: a tape per page, no value tree.
  var start = ChildProcess.monotonicSeconds()
  for page in pages { _ = try JSONTape(parsing: page) }
  let tapeParse = ChildProcess.monotonicSeconds() - start
  // The rest of a sync's encoding CPU: each page's items decoded, and every item's documents
  // rendered from its page's tape (the fastest of three passes, page by page).
  let model = try await SpaceModel.fetch(
    from: ModelSource(locales: fullSpace.localesJSON, contentTypes: fullSpace.contentTypesJSON))
  let renderer = DocumentRenderer(model: model)
  let localeCodes = model.locales.map(\.code)
  var pageDecode = Double.infinity
  var render = Double.infinity
  var documentBytes = 0
  for _ in 0..<3 {
    var decodeTime = 0.0
    var renderTime = 0.0
    documentBytes = 0
    for page in pages {
      start = ChildProcess.monotonicSeconds()
      let decoded = try SyncPage(decoding: page)
      let decodedAt = ChildProcess.monotonicSeconds()
      for case .upsert(let item) in decoded.items {
        for document in renderer.encodedDocuments(for: item, locales: localeCodes) {
          documentBytes += document.count
        }
      }
      renderTime += ChildProcess.monotonicSeconds() - decodedAt
      decodeTime += decodedAt - start
    }
    pageDecode = min(pageDecode, decodeTime)
    render = min(render, renderTime)
  }
  start = ChildProcess.monotonicSeconds()
  var values: [JSONValue] = []
  for page in pages { values.append(try JSONReader().read(page)) }
  let ourParse = ChildProcess.monotonicSeconds() - start
  start = ChildProcess.monotonicSeconds()
  var written = 0
  for value in values { written += CanonicalJSON.encode(value).count }
  let ourWrite = ChildProcess.monotonicSeconds() - start
  values.removeAll()
  start = ChildProcess.monotonicSeconds()
  var objects: [Any] = []
  for page in pages { objects.append(try JSONSerialization.jsonObject(with: Data(page))) }
  let foundationParse = ChildProcess.monotonicSeconds() - start
  start = ChildProcess.monotonicSeconds()
  for object in objects {
    written += try JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .prettyPrinted]
    ).count
  }
  let foundationWrite = ChildProcess.monotonicSeconds() - start
  print(
    String(
      format:
        "JSON, %.0f MB of sync pages: tape %.2f s, parse to values %.2f s (Foundation %.2f s), canonical write %.2f s (Foundation sorted+pretty %.2f s)",
      Double(bytes) / 1e6, tapeParse, ourParse, foundationParse, ourWrite, foundationWrite))
  print(
    String(
      format: "documents: pages decoded into items %.2f s, %.0f MB of documents rendered %.2f s",
      pageDecode, Double(documentBytes) / 1e6, render))
}

func syncArguments(_ directory: String, _ server: SpaceServer) -> [String] {
  ["sync", directory, "--space", SyntheticSpace.spaceID, "--host", server.baseURL, "--quiet"]
}

/// Times a first sync of the full space into `directory`, with `options` added.
func initialSync(_ directory: String, _ options: [String] = []) -> Measurement {
  let measurement = ChildProcess.run(
    executable, syncArguments(directory, fullServer) + options, environment: token)
  check(measurement, (["initial sync"] + options).joined(separator: " "))
  return measurement
}

// 1. Initial sync, interleaved with 2. the floor: tar -xf of the identical tree, and the same
// followed by `sync -f` (the floor with the durability a sync provides). File-creation cost on a
// shared disk drifts over minutes, so they are measured turn about.
var mirrors: [String] = []
var initial: [Measurement] = []
var extractions: [Measurement] = []
var durableExtractions: [Measurement] = []
let tar = ChildProcess.tool("tar")
let treeArchive = work + "/tree.tar"
@MainActor func extractTree(with tar: String) throws {
  let directory = freshDirectory("tarx")
  try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  let measurement = ChildProcess.run(tar, ["-xf", treeArchive, "-C", directory])
  check(measurement, "tar -xf")
  extractions.append(measurement)
  let durable = freshDirectory("tarx-sync")
  try FileManager.default.createDirectory(atPath: durable, withIntermediateDirectories: true)
  let durableMeasurement = ChildProcess.run(
    "/bin/sh", ["-c", #""$0" -xf "$1" -C "$2" && sync -f "$2""#, tar, treeArchive, durable])
  check(durableMeasurement, "tar -xf && sync -f")
  durableExtractions.append(durableMeasurement)
}
/// Applies the space's delta to the mirror in `directory` `deltaRepeats` times: between two, the
/// manifest's sync token is set back to the one before the delta, so the next sync fetches and
/// writes the same changes again (the same documents rewritten, the same index shards read and
/// written). One delta lasts about 0.1 s, so a single one per mirror is mostly noise.
func timeDeltas(_ directory: String) throws -> [Measurement] {
  let manifest = URL(fileURLWithPath: directory + "/manifest.json")
  let before = try JSONReader().read(Array(Data(contentsOf: manifest)))
  var measurements: [Measurement] = []
  for application in 1...deltaRepeats {
    let delta = ChildProcess.run(executable, ["sync", directory, "--quiet"], environment: token)
    check(delta, "delta sync of \(directory)")
    measurements.append(delta)
    if application == deltaRepeats { break }
    guard var after = try JSONReader().read(Array(Data(contentsOf: manifest))).objectValue else {
      throw CocoaError(.fileReadCorruptFile)
    }
    after["syncToken"] = before["syncToken"]
    try Data(CanonicalJSON.encode(.object(after))).write(to: manifest)
  }
  return measurements
}
// 3. A delta of `deltaChanges` entries on each full mirror, right after its initial sync: the
// small mirrors' deltas (4.) run the same way, so both sizes are measured with the same state
// of the caches. (Run after every sync and extraction, a 100k mirror's shards could be out of
// the page cache by then, and its delta read them from disk, while a small mirror's never were.)
var deltas: [Measurement] = []
// 1b. The same initial sync without any flush (`--durability none`): the difference is what
// durability costs. (`ChildProcess.run` flushes the file systems before it starts a clock.)
var unflushed: [Measurement] = []
var byWriters: [Int: [Measurement]] = [:]
for run in 0..<runs {
  if run > 0, let tar { try extractTree(with: tar) }
  let directory = freshDirectory("mirror")
  initial.append(initialSync(directory))
  mirrors.append(directory)
  if run == 0, let tar {
    check(ChildProcess.run(tar, ["-cf", treeArchive, "-C", directory, "."]), "tar -cf")
  }
  deltas += try timeDeltas(directory)
  unflushed.append(initialSync(freshDirectory("unflushed"), ["--durability", "none"]))
  for count in writerCounts {
    byWriters[count, default: []].append(
      initialSync(freshDirectory("writers"), ["--writers", "\(count)"]))
  }
}
if runs == 1, let tar { try extractTree(with: tar) }
let documents = (entries + assets) * locales
let initialMedian = medianMeasurement(initial)
let floor = extractions.isEmpty ? nil : medianMeasurement(extractions)
let durableFloor = durableExtractions.isEmpty ? nil : medianMeasurement(durableExtractions)

let deltaMedian = medianMeasurement(deltas)

// 4. The same delta on a 10x smaller mirror.
var smallSpace = SyntheticSpace(
  entries: max(entries / 10, 1), assets: max(assets / 10, 1), locales: locales, seed: seed)
let smallServer = try SpaceServer(space: &smallSpace, deltaChanges: deltaChanges)
var smallDeltas: [Measurement] = []
for _ in 0..<runs {
  let directory = freshDirectory("small")
  check(
    ChildProcess.run(executable, syncArguments(directory, smallServer), environment: token),
    "small initial sync")
  smallDeltas += try timeDeltas(directory)
}
let smallDeltaMedian = medianMeasurement(smallDeltas)

// 5. Export against bsdtar on the same tree, format and level.
var exportRows: [(String, Measurement, Measurement?)] = []
if !flags.contains("--skip-export") {
  let bsdtar = ChildProcess.tool("bsdtar")
  let formats: [(name: String, ours: [String], theirs: [String])] = [
    ("tar", [], ["--format", "pax"]),
    (
      "tar.gz", ["--level", "6"],
      ["--format", "pax", "-z", "--options", "gzip:compression-level=6,gzip:!timestamp"]
    ),
    (
      "tar.zst", ["--level", "3"],
      ["--format", "pax", "--zstd", "--options", "zstd:compression-level=3"]
    ),
  ]
  for format in formats {
    var ours: [Measurement] = []
    var theirs: [Measurement] = []
    for run in 0..<runs {
      let output = "\(work)/export-\(run).\(format.name)"
      let measurement = ChildProcess.run(
        executable, ["export", mirrors[0], "-o", output] + format.ours)
      check(measurement, "export \(format.name)")
      ours.append(measurement)
      if let bsdtar {
        let theirOutput = "\(work)/bsdtar-\(run).\(format.name)"
        let other = ChildProcess.run(
          bsdtar, ["-cf", theirOutput] + format.theirs + ["-C", mirrors[0], "."])
        check(other, "bsdtar \(format.name)")
        theirs.append(other)
      }
    }
    exportRows.append(
      (format.name, medianMeasurement(ours), theirs.isEmpty ? nil : medianMeasurement(theirs)))
  }
}

print("")
print(
  String(
    format: "initial sync      %@  (%.0f documents/s, %d documents)", initialMedian.description,
    Double(documents) / initialMedian.wall, documents))
if let floor {
  print(String(format: "tar -xf (floor)   %@", floor.description))
  print(
    String(format: "  ratio initial sync / tar -xf: %.2fx wall", initialMedian.wall / floor.wall))
  // Each extraction ran just before the next sync (after the only one when there is one run):
  // paired turn about, their ratios are less moved by the disk's drift over minutes.
  let paired = extractions.indices.map {
    initial[runs > 1 ? $0 + 1 : 0].wall / extractions[$0].wall
  }
  print(
    "  each sync / the tar -xf before it: "
      + paired.map { String(format: "%.2fx", $0) }.joined(separator: " ")
      + String(format: " (median %.2fx)", median(paired)))
}
let unflushedMedian = medianMeasurement(unflushed)
print(String(format: "  without flushes %@", unflushedMedian.description))
if let floor {
  print(
    String(
      format: "  ratio initial sync --durability none / tar -xf: %.2fx wall",
      unflushedMedian.wall / floor.wall))
}
for count in writerCounts {
  let measurement = medianMeasurement(byWriters[count] ?? [])
  print(String(format: "  --writers %-5d %@", count, measurement.description))
  if let floor {
    print(String(format: "    ratio to tar -xf: %.2fx wall", measurement.wall / floor.wall))
  }
}
if let durableFloor {
  print(String(format: "tar -xf && sync -f %@", durableFloor.description))
  print(
    String(
      format: "  ratio initial sync / (tar -xf && sync -f): %.2fx wall",
      initialMedian.wall / durableFloor.wall))
}
print(String(format: "delta %d, full    %@", deltaChanges, deltaMedian.description))
print(String(format: "delta %d, 1/10    %@", deltaChanges, smallDeltaMedian.description))
print(
  String(format: "  ratio delta full / small: %.2fx wall", deltaMedian.wall / smallDeltaMedian.wall)
)
for (name, ours, theirs) in exportRows {
  print(String(format: "export %-8@   %@", name, ours.description))
  if let theirs {
    print(String(format: "bsdtar %-8@   %@", name, theirs.description))
    print(String(format: "  ratio export / bsdtar (%@): %.2fx wall", name, ours.wall / theirs.wall))
  }
}
if !flags.contains("--keep") { try? FileManager.default.removeItem(atPath: work) }

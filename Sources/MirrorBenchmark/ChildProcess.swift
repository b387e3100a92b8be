import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs a command as a child process and measures it with `wait4(2)`: wall time, user and
/// system CPU, and peak RSS of that child alone.
struct Measurement: CustomStringConvertible {
  var wall: Double
  var user: Double
  var system: Double
  var maxRSSKilobytes: Int
  var status: Int32
  /// CPU seconds the whole machine used during the run (`/proc/stat`; 0 where there is none):
  /// the child's, plus the kernel threads working for it, such as those writing back what a
  /// `syncfs` flushes, plus the benchmark's own server.
  var machineCPU: Double = 0

  var description: String {
    String(
      format: "%.2f s wall, %.2f s user, %.2f s sys, %d MB RSS", wall, user, system,
      maxRSSKilobytes / 1024)
      + (machineCPU > 0 ? String(format: ", %.2f s machine CPU", machineCPU) : "")
  }
}

enum ChildProcess {
  /// Runs the command after flushing dirty pages (so one step's writeback is not billed to the
  /// next), under GNU time when present: a child spawned straight from this process would report
  /// this process's peak RSS (Linux keeps the high-water mark across exec after vfork).
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    stdoutPath: String? = nil
  ) -> Measurement {
    sync()
    guard let time = tool("time") else {
      return spawn(executable, arguments, environment: environment, stdoutPath: stdoutPath)
    }
    let report = NSTemporaryDirectory() + "contentful-mirror-bench-time-\(getpid())"
    var measurement = spawn(
      time, ["-f", "%M", "-o", report, executable] + arguments, environment: environment,
      stdoutPath: stdoutPath)
    if let text = try? String(contentsOfFile: report, encoding: .utf8),
      let kilobytes = text.split(separator: "\n").last.flatMap({
        Int($0.trimmingCharacters(in: .whitespaces))
      })
    {
      measurement.maxRSSKilobytes = kilobytes
    }
    unlink(report)
    return measurement
  }

  private static func spawn(
    _ executable: String, _ arguments: [String], environment: [String: String], stdoutPath: String?
  ) -> Measurement {
    var fileActions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&fileActions)
    defer { posix_spawn_file_actions_destroy(&fileActions) }
    posix_spawn_file_actions_addopen(
      &fileActions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&fileActions, 2, "/dev/null", O_WRONLY, 0)
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let machineStart = machineCPUSeconds()
    let start = monotonicSeconds()
    guard posix_spawn(&pid, executable, &fileActions, nil, argv, envp) == 0 else {
      return Measurement(wall: 0, user: 0, system: 0, maxRSSKilobytes: 0, status: -1)
    }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let wall = monotonicSeconds() - start
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    let machine = machineStart.flatMap { start in machineCPUSeconds().map { $0 - start } }
    return Measurement(
      wall: wall, user: seconds(usage.ru_utime), system: seconds(usage.ru_stime),
      maxRSSKilobytes: usage.ru_maxrss, status: (status >> 8) & 0xFF, machineCPU: machine ?? 0)
  }

  /// CPU seconds all CPUs have spent busy since boot (user, nice, system, irq and softirq of
  /// `/proc/stat`'s first line), or `nil` where there is no `/proc/stat`.
  private static func machineCPUSeconds() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
      let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
    else { return nil }
    let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard ticks.count >= 7 else { return nil }
    let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]
    return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  static func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// The first of `names` found in /usr/bin or /bin.
  static func tool(_ name: String) -> String? {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + name }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }
}

@preconcurrency import Glibc
import Foundation

/// CPU seconds (user + system) spent by this process and everything it started: its threads, its children that
/// were waited for (`RUSAGE_CHILDREN`), and the live descendants (a long-lived extraction worker, read from
/// `/proc/PID/stat` with the children they waited for). Monotonic while descendants are only replaced by reaped
/// ones, so the difference of two readings is the CPU work between them, whatever else loads the host.
enum ProcessTreeCPU {
    static func now() -> Double {
        var own = rusage()
        var reaped = rusage()
        getrusage(RUSAGE_SELF.rawValue, &own)
        getrusage(RUSAGE_CHILDREN.rawValue, &reaped)
        return seconds(own.ru_utime) + seconds(own.ru_stime) + seconds(reaped.ru_utime) + seconds(reaped.ru_stime)
            + liveDescendants()
    }

    static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }

    /// utime + stime + cutime + cstime of every live descendant of this process, in seconds.
    static func liveDescendants() -> Double {
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        var parent: [Int32: Int32] = [:]
        var ticks: [Int32: Double] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)": state ppid … utime(14) stime(15) cutime(16) cstime(17), counted from 1 overall.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 14, let ppid = Int32(fields[1]) else { continue }
            parent[pid] = ppid
            ticks[pid] = fields[11...14].compactMap { Double($0) }.reduce(0, +)
        }
        let me = getpid()
        var total = 0.0
        for (pid, used) in ticks where pid != me {
            var ancestor = parent[pid]
            var depth = 0
            while let current = ancestor, current != me, current > 1, depth < 64 {
                ancestor = parent[current]
                depth += 1
            }
            if ancestor == me { total += used }
        }
        return total / tick
    }
}

import CTroveProcess
import Foundation
import TroveIngest
import TroveSystem

/// The worker side: `trove extract-worker`, started by `ExtractionService` under its limits. It reads requests from
/// the socket on descriptor 3, each with the file's open descriptor attached, extracts, and answers one line each,
/// until the host closes the socket. A crash, trap, hang or blow-up here ends only this process.
package enum ExtractionWorker {
    /// The descriptor of the socket to the host.
    package static let socket: Int32 = 3
    /// The longest request line accepted.
    private static let requestLimit = 64 << 10

    /// Runs the worker with its arguments (after `extract-worker`): the exit status.
    package static func run(_ arguments: [String]) -> Int32 {
        var fault: TestFault?
        var words = arguments[...]
        while let word = words.popFirst() {
            if word == "--probe" {
                // Confinement's probe: the worker started, under bwrap, with its libraries in view.
                return 0
            } else if word == "--test-fault", let kind = words.popFirst().flatMap(TestFault.init(rawValue:)) {
                fault = kind
            } else {
                FileHandle.standardError.write(
                    Data("trove extract-worker: unexpected argument '\(word)' (started by trove itself)\n".utf8))
                return 64
            }
        }
        var framer = LineFramer(limit: requestLimit)
        var descriptor: Int32 = -1
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var received: Int32 = -1
            let got = buffer.withUnsafeMutableBytes {
                trove_receive_descriptor(socket, $0.baseAddress, UInt($0.count), &received)
            }
            if received >= 0 {
                if descriptor >= 0 { close(descriptor) }
                descriptor = received
            }
            guard got > 0 else { return got == 0 ? 0 : 1 }
            for piece in framer.feed(Data(buffer[..<got])) {
                let reply: WorkerReply
                if case .line(let line) = piece, let request = try? JSONDecoder().decode(WorkerRequest.self, from: line),
                    descriptor >= 0
                {
                    // SIGALRM's default action ends the worker if it still runs well past the host's watchdog.
                    alarm(UInt32(clamping: request.deadline + 10))
                    reply = answer(request, descriptor: descriptor, fault: fault)
                    alarm(0)
                } else {
                    reply = .failure(ExtractionFailure(.crashed, "the worker got a request it cannot read"))
                }
                if descriptor >= 0 { close(descriptor) }
                descriptor = -1
                guard reply.line().withUnsafeBytes({ FileDescriptor(socket).write(all: $0) }) else { return 1 }
            }
        }
    }

    /// The reply to one request.
    private static func answer(_ request: WorkerRequest, descriptor: Int32, fault: TestFault?) -> WorkerReply {
        do throws(ExtractionFailure) {
            if let fault, try startsWithMarker(descriptor),
                let document = fault.act(on: descriptor, replyingOn: socket)
            {
                return .document(document)
            }
            guard let reader = ExtractorRegistry.reader(for: request.format) else {
                throw ExtractionFailure(.toolMissing, "this build of trove has no \(request.format.rawValue) extractor")
            }
            switch reader {
            case .bytes(let extractor):
                return .document(try extractor.extract(try readAll(descriptor, limits: request.limits), limits: request.limits))
            case .descriptor(let extract):
                return .document(try extract(descriptor, request.limits))
            }
        } catch {
            return .failure(error)
        }
    }

    /// The whole file, read from offset 0 without moving the shared offset; `damaged` past `maxInputBytes`.
    package static func readAll(_ descriptor: Int32, limits: ExtractionLimits) throws(ExtractionFailure) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let offset = off_t(bytes.count)
            let got = chunk.withUnsafeMutableBytes { buffer in
                retryingInterrupts { pread(descriptor, buffer.baseAddress, buffer.count, offset) }
            }
            guard got >= 0 else {
                throw ExtractionFailure(.damaged, "unreadable: \(String(cString: strerror(errno)).lowercased())")
            }
            if got == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<got])
            guard bytes.count <= limits.maxInputBytes else {
                throw ExtractionFailure(.damaged, "larger than \(ByteSize.format(Int64(limits.maxInputBytes)))")
            }
        }
    }

    private static func startsWithMarker(_ descriptor: Int32) throws(ExtractionFailure) -> Bool {
        var head = [UInt8](repeating: 0, count: TestFault.marker.count)
        let got = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return got == head.count && head == TestFault.marker
    }
}

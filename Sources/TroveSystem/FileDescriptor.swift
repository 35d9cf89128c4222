@preconcurrency import Glibc

/// A file descriptor's reads and writes, each retried while a signal interrupts it (`EINTR`): the one place Trove
/// retries, as swift-system's `valueOrErrno(retryOnInterrupt:)` is behind every one of its `FileDescriptor` calls.
/// It does not own the descriptor: opening and closing stay the caller's.
package struct FileDescriptor: Sendable, Hashable {
    /// The descriptor's number.
    package let rawValue: Int32

    /// The descriptor numbered `rawValue`.
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// One `read` into `buffer`: the bytes read, 0 at the end of input, or -1 with `errno` set.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        retryingInterrupts { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Fills all of `buffer`: false at an end of input before it is full, or on an error.
    package func read(exactly buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let got = read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            guard got > 0 else { return false }
            done += got
        }
        return true
    }

    /// One `write` of `buffer`: the bytes written, or -1 with `errno` set.
    package func write(_ buffer: UnsafeRawBufferPointer) -> Int {
        retryingInterrupts { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes all of `buffer`, however many calls that takes: false on an error (`EPIPE`: the reader is gone).
    package func write(all buffer: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let put = write(UnsafeRawBufferPointer(rebasing: buffer[done...]))
            guard put > 0 else { return false }
            done += put
        }
        return true
    }

    /// One `recv` on a socket into `buffer`: the bytes received, 0 at the end of the stream, or -1 (a timeout too).
    package func receive(into buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) -> Int {
        retryingInterrupts { recv(rawValue, buffer.baseAddress, buffer.count, flags) }
    }

    /// `send`s `buffer` on a socket until all of it is taken or a call takes nothing (an error, a timeout, or with
    /// `MSG_DONTWAIT` a full socket buffer): the bytes sent.
    package func send(all buffer: UnsafeRawBufferPointer, flags: Int32) -> Int {
        var done = 0
        while done < buffer.count {
            let put = retryingInterrupts {
                Glibc.send(rawValue, buffer.baseAddress! + done, buffer.count - done, flags)
            }
            guard put > 0 else { break }
            done += put
        }
        return done
    }
}

/// `call`, again while it fails with `EINTR` (a signal arrived before it did anything); its result otherwise.
package func retryingInterrupts<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result < 0, errno == EINTR { continue }
        return result
    }
}

import TroveKit
import TroveOutput

/// The server `trove serve` runs: its index searched for each client, the hits printed as the client would have.
extension SearchServer {
    /// Serves `index` (open at `location`) until `stop` is raised. `admission` is the server process's own settings:
    /// clients are admitted by those the index's provider uses (another `--ollama` matters only to Ollama's). What
    /// happens to the index (a reload, another embedder) goes to `log`.
    package static func serve(
        _ index: TroveIndex, location: IndexLocation, admission: Admission, limits: Limits = Limits(), stop: StopSignal,
        ready: () -> Void, log: (String) -> Void
    ) async throws {
        let provider = try await index.provider()
        try await serve(
            location: location, admission: admission.used(by: provider), limits: limits, stop: stop, ready: ready
        ) { request, style in
            await answer(request, style: style, index: index, provider: provider, stop: stop, log: log)
        }
    }

    /// One search of `index`, printed in `style` when the client sent one; an error becomes the answer's `error`.
    private static func answer(
        _ request: SearchRequest, style: OutputStyle?, index: TroveIndex, provider: Provider?, stop: StopSignal,
        log: (String) -> Void
    ) async -> Response {
        do {
            if try await index.refresh() {
                log("the index changed: reloading")
                // A re-embed with another provider: the admitted clients' settings no longer say who embeds.
                if let now = try await index.provider(), now != provider {
                    stop.stop()
                    log(
                        "the index now embeds with \(now), not \(provider?.rawValue ?? "nothing") — stopping; start trove "
                            + "serve again")
                    return Response(error: "the running trove serve stopped: the index's embedder changed")
                }
            }
            let hits = try await index.search(request)
            let model = try await index.embeddingModel()
            guard let style else { return Response(hits: hits, model: model) }
            let output = try HitPrinter(style, request: request).output(hits, model: model ?? "")
            return Response(output: output, count: hits.count, model: model)
        } catch {
            return Response(error: String(describing: error))
        }
    }
}

import TroveIngest

/// Where a passage of a PDF, DOCX, … lies in the original (pages 4–5), as hits and citations carry it.
public typealias PassageLocator = TroveIngest.PassageLocator
/// What a locator counts: pages, slides, messages or cells.
public typealias LocatorKind = TroveIngest.LocatorKind

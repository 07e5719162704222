/// The `SinkArn` of a media capture pipeline, `arn:aws:s3:::BUCKET[/PREFIX]`, read as the folders its files go under.
enum MediaCaptureSink {
    /// The bucket and the prefix's parts, or nil when the ARN is not an S3 ARN this server can write under: the bucket
    /// 3-63 characters of `a-z0-9.-`, each prefix part 1-255 characters of `A-Za-z0-9!-_.*'()`, none `.` or `..`, at
    /// most 1024 characters in all.
    static func pathComponents(sinkArn: String) -> [String]? {
        let scheme = "arn:aws:s3:::"
        guard sinkArn.hasPrefix(scheme), sinkArn.count <= 1024 else { return nil }
        let parts = sinkArn.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let bucket = parts.first, (3...63).contains(bucket.count),
              bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "-") }),
              bucket.first?.isLetter == true || bucket.first?.isNumber == true, !bucket.contains("..")
        else { return nil }
        var prefix = Array(parts.dropFirst())
        if prefix.last == "" { prefix.removeLast() }
        for part in prefix {
            guard (1...255).contains(part.count), part != ".", part != "..",
                  part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "!-_.*'()".contains($0)) })
            else { return nil }
        }
        return [bucket] + prefix
    }
}

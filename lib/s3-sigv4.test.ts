/**
 * The SigV4 signer against AWS's published signatures: the Signature Version 4 test suite
 * (aws-sig-v4-test-suite: get-vanilla, get-vanilla-query-order-key-case, post-vanilla) and the Amazon S3
 * API Reference's "Signature Calculations for the Authorization Header" examples (GET Object with a
 * Range, PUT Object, GET Bucket lifecycle, GET Bucket list objects).
 */
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { amzDate, EMPTY_SHA256, encodeKeyPath, signV4 } from "./s3-sigv4";

const suite = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const suiteScope = { region: "us-east-1", service: "service", date: new Date("2015-08-30T12:36:00Z") };
const s3 = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const s3Scope = { region: "us-east-1", service: "s3", date: new Date("2013-05-24T00:00:00Z") };
const S3_HOST = "examplebucket.s3.amazonaws.com";

describe("signV4", () => {
  it("reproduces the SigV4 test suite's vanilla requests", () => {
    const vanilla = signV4({ method: "GET", host: "example.amazonaws.com", path: "/", payloadHash: EMPTY_SHA256 }, suite, suiteScope);
    expect(vanilla.headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
    expect(vanilla.headers["x-amz-date"]).toBe("20150830T123600Z");
    const query = signV4({ method: "GET", host: "example.amazonaws.com", path: "/", query: [["Param2", "value2"], ["Param1", "value1"]], payloadHash: EMPTY_SHA256 }, suite, suiteScope);
    expect(query.signature).toBe("b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
    const post = signV4({ method: "POST", host: "example.amazonaws.com", path: "/", payloadHash: EMPTY_SHA256 }, suite, suiteScope);
    expect(post.signature).toBe("5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
  });

  it("reproduces the S3 API reference's examples", () => {
    const get = signV4({ method: "GET", host: S3_HOST, path: "/test.txt", headers: { Range: "bytes=0-9", "x-amz-content-sha256": EMPTY_SHA256 }, payloadHash: EMPTY_SHA256 }, s3, s3Scope);
    expect(get.headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    );
    const body = crypto.createHash("sha256").update("Welcome to Amazon S3.").digest("hex");
    const put = signV4(
      {
        method: "PUT",
        host: S3_HOST,
        path: `/${encodeKeyPath("test$file.text")}`,
        headers: { Date: "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY", "x-amz-content-sha256": body },
        payloadHash: body,
      },
      s3,
      s3Scope,
    );
    expect(put.signature).toBe("98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
    const lifecycle = signV4({ method: "GET", host: S3_HOST, path: "/", query: [["lifecycle", ""]], headers: { "x-amz-content-sha256": EMPTY_SHA256 }, payloadHash: EMPTY_SHA256 }, s3, s3Scope);
    expect(lifecycle.signature).toBe("fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
    const list = signV4({ method: "GET", host: S3_HOST, path: "/", query: [["prefix", "J"], ["max-keys", "2"]], headers: { "x-amz-content-sha256": EMPTY_SHA256 }, payloadHash: EMPTY_SHA256 }, s3, s3Scope);
    expect(list.signature).toBe("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
  });

  it("signs a session token, and any change of the request changes the signature", () => {
    const base = { method: "GET", host: S3_HOST, path: "/test.txt", payloadHash: EMPTY_SHA256 };
    const plain = signV4(base, s3, s3Scope);
    const withToken = signV4(base, { ...s3, sessionToken: "tok" }, s3Scope);
    expect(withToken.headers["x-amz-security-token"]).toBe("tok");
    expect(withToken.headers.authorization).toContain("SignedHeaders=host;x-amz-date;x-amz-security-token");
    for (const other of [
      signV4({ ...base, path: "/test.txu" }, s3, s3Scope),
      signV4({ ...base, method: "HEAD" }, s3, s3Scope),
      signV4(base, { ...s3, secretAccessKey: "x" }, s3Scope),
      signV4(base, s3, { ...s3Scope, region: "eu-west-1" }),
      signV4({ ...base, payloadHash: "UNSIGNED-PAYLOAD" }, s3, s3Scope),
    ]) expect(other.signature).not.toBe(plain.signature);
    expect(amzDate(new Date("2026-12-02T13:05:09.123Z"))).toBe("20261202T130509Z");
    expect(encodeKeyPath("a b/ü+(x)*~.txt")).toBe("a%20b/%C3%BC%2B%28x%29%2A~.txt");
  });
});

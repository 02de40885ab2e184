/** data/blobNames.ts: a List Blobs answer rewritten so that the blob SDK's parser gives true names and markers. */
import * as assert from 'node:assert/strict';
import { encodedBlobNames, MARKER_MARK, markerOf, withTrueMarker, xmlText } from '../../../src/data/blobNames';

const blob = (name: string): string => `<Blob><Name>${name}</Name><Properties><Content-Length>1</Content-Length></Properties></Blob>`;

describe('data/blobNames', () => {
  it('decodes named entities and numeric references; refuses a reference to no character', () => {
    assert.equal(xmlText('a&#xD;\nb&#13;&#x9;&#x1F600;&amp;#xD;&lt;&gt;&quot;&apos;'), 'a\r\nb\r\t😀&#xD;<>"\'');
    assert.equal(xmlText('plain'), 'plain');
    assert.equal(xmlText('&#xD800;'), undefined);
    assert.equal(xmlText('&#x110000;'), undefined);
  });

  it('writes a name with a character reference Encoded, percent-encoded; a literal "&#xD;" and plain names stay', () => {
    const xml = `<EnumerationResults><Blobs>${blob('x&#xD;y')}${blob('x&amp;#xD;y')}${blob('plain &amp; simple')}<BlobPrefix><Name>dir&#xD;/</Name></BlobPrefix></Blobs><NextMarker/></EnumerationResults>`;
    assert.equal(encodedBlobNames(xml),
      `<EnumerationResults><Blobs>${blob('x&#xD;y').replace('<Name>x&#xD;y', '<Name Encoded="true">x%0Dy')}${blob('x&amp;#xD;y')}${blob('plain &amp; simple')}<BlobPrefix><Name Encoded="true">dir%0D%2F</Name></BlobPrefix></Blobs><NextMarker/></EnumerationResults>`);
    // The rest of an encoded name decoded too: a named entity beside a reference.
    assert.ok(encodedBlobNames(blob('a&amp;b&#13;')).includes(`<Name Encoded="true">${encodeURIComponent('a&b\r')}</Name>`));
    for (const unchanged of [blob('x&amp;#xD;y'), blob('&#xD800;'), '<Metadata><Name>&#xD;</Name></Metadata>', blob('a\tb\nc')]) {
      assert.equal(encodedBlobNames(unchanged), unchanged, unchanged);
    }
  });

  it('makes a marker with a character reference a token that the next request turns back into the true marker', () => {
    const xml = encodedBlobNames(`<EnumerationResults><Blobs>${blob('a&#xD;b')}</Blobs><NextMarker>a&#xD;b</NextMarker></EnumerationResults>`);
    const token = /<NextMarker>([^<]*)<\/NextMarker>/.exec(xml)![1]!;
    assert.equal(token, `${MARKER_MARK}a%0Db`);
    assert.equal(markerOf(token), 'a\rb');
    // A marker without a reference, and a literal "&#xD;", are markers as they are.
    assert.equal(encodedBlobNames('<NextMarker>a&amp;#xD;b</NextMarker>'), '<NextMarker>a&amp;#xD;b</NextMarker>');
    assert.equal(markerOf('a&#xD;b'), 'a&#xD;b');
    // The SDK writes the token into the URL with encodeURIComponent; the request gets the true marker.
    const url = `http://127.0.0.1:10000/devstoreaccount1/c?comp=list&marker=${encodeURIComponent(token)}&restype=container`;
    assert.equal(withTrueMarker(url), 'http://127.0.0.1:10000/devstoreaccount1/c?comp=list&marker=a%0Db&restype=container');
    for (const unchanged of ['http://h/a/c?comp=list&marker=a%26%23xD%3Bb&restype=container', 'http://h/a/c?comp=list&restype=container', 'http://h/a/c', 'http://h/a/c?marker=%E0%A4%A']) {
      assert.equal(withTrueMarker(unchanged), unchanged, unchanged);
    }
  });
});

import * as assert from 'node:assert/strict';
import { describeRestError, restErrorMessage } from '../../../src/core/restErrors';

describe('restErrorMessage', () => {
  it('takes the <Message> out of an XML error body, entities decoded, first line only; nothing from one without it', () => {
    const xml = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Error>\n  <Code>X</Code>\n  <Message>R&amp;D &lt;1&gt; &#x41;&#66;\nRequestId:1</Message>\n</Error>';
    assert.equal(restErrorMessage(xml), 'R&D <1> AB');
    assert.equal(restErrorMessage('<?xml version="1.0"?>\n<Error><Code>X</Code></Error>'), '');
  });

  it('takes the message out of a table error\'s OData JSON body (what @azure/data-tables keeps as its message), first line only', () => {
    const body = JSON.stringify({ 'odata.error': { code: 'TableNotFound', message: { lang: 'en-US', value: 'The table specified does not exist.\nRequestId:b5eb\nTime:2026-11-26T20:59:12.713Z' } } });
    assert.equal(restErrorMessage(body), 'The table specified does not exist.');
  });

  it('gives the first line of any other message, and a JSON message without an OData error as it is', () => {
    assert.equal(restErrorMessage('The specified container does not exist.\nRequestId:1\nTime:2'), 'The specified container does not exist.');
    assert.equal(restErrorMessage('{"unexpected":true}'), '{"unexpected":true}');
    assert.equal(restErrorMessage('{not json'), '{not json');
  });
});

describe('describeRestError', () => {
  it('says what to do for each kind of certificate a client refuses, and nothing more for other errors', () => {
    assert.match(describeRestError({ message: 'self-signed certificate', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), /^self-signed certificate: VS Code does not trust .*NODE_EXTRA_CA_CERTS/);
    assert.match(describeRestError({ message: "Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: ", code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), /: the HTTPS certificate that Azurite serves does not name the host it is reached at\. Make one that names it/);
    assert.match(describeRestError({ message: 'certificate has expired', code: 'CERT_HAS_EXPIRED' }), /^certificate has expired: .*outside its validity period; make a new one\.$/);
    assert.equal(describeRestError(new Error('The specified container does not exist.\nRequestId:1')), 'The specified container does not exist.');
  });
});

/**
 * Free text as the stores keep it: control characters other than line breaks and tabs are removed (a NUL
 * makes SQLite refuse the statement), a lone surrogate becomes U+FFFD (what the database would make of it).
 */
export function cleanText(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- the control characters are what is removed
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
  )
}

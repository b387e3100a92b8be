#ifndef CONTENTFUL_MIRROR_CCURL_SHIM_H
#define CONTENTFUL_MIRROR_CCURL_SHIM_H

// libcurl, from the system (Debian: libcurl4-openssl-dev). Only CurlSession.swift in
// ContentfulMirror imports this module. curl_easy_setopt and curl_easy_getinfo are variadic,
// which Swift cannot call: these inline functions fix their argument types.
#include <curl/curl.h>

static inline CURLcode cm_curl_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cm_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cm_curl_setopt_callback(
    CURL *handle, CURLoption option, curl_write_callback callback) {
  return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode cm_curl_setopt_progress(
    CURL *handle, curl_xferinfo_callback callback, void *context) {
  CURLcode code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
  if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, context);
  if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
  return code;
}

static inline long cm_curl_response_code(CURL *handle) {
  long code = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
  return code;
}

#endif

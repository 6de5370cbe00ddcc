import{e as a,f as b,g as c}from"./chunk-VJCVUYNG.js";import"./chunk-XR5EWTAA.js";export{a as loadFleetMap,c as mountPoseMap,b as poseOfPayload};

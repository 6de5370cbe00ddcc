import{e as a,f as b,g as c}from"./chunk-6GUWCM65.js";import"./chunk-77SKF6SU.js";export{a as loadFleetMap,c as mountPoseMap,b as poseOfPayload};
